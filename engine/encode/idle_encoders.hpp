#pragma once
// The GPU encoders slots keep open between their sessions, at most one per
// slot and rung: a slot that comes back to a rung goes on with its encoder
// instead of opening another (an NVENC session takes about a fifth of a
// second to open, under FFmpeg's process-wide codec-open lock). Only GPU
// encoders (EncoderTraits::controls_session_rate), and no more once a GPU session
// failed: a driver may cap sessions without saying so, and kept encoders
// would then starve the other slots. A slot under a cap the driver does
// announce (GeForce: slots x 1 within it) keeps only the encoder of its
// last rung, closed before it opens one for another rung
// (EncoderWorker::encode_session), so it never holds two.
//
// Owned by the run; every call takes its lock. An encoder is in here only
// while no session uses it. Encoders are closed outside the lock.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/encode/backend/encoder_backend.hpp"

namespace ladder::engine {

struct IdleEncoder {
    std::unique_ptr<EncoderBackend> backend;
    int kbps = 0;               // what it was opened with
    bool opened_ahead = false;  // before any session used it (EncoderWorker::open_ahead)
};

class IdleEncoders {
public:
    IdleEncoders() = default;
    IdleEncoders(const IdleEncoders&) = delete;
    IdleEncoders& operator=(const IdleEncoders&) = delete;

    // The slot's encoder kept for the rung, taken out; nullopt when none.
    std::optional<IdleEncoder> take(const gpu::EncoderSlot& slot, int rung);
    // Keeps the encoder (moved from) and returns true; false, leaving it to
    // the caller to finish, when the slot may not keep one.
    bool keep(const gpu::EncoderSlot& slot, int rung, IdleEncoder& encoder);
    // Closes the slot's encoders of the rungs `done` says are done (every
    // one with `everything`). `done` is called without the lock held.
    void close(const gpu::EncoderSlot& slot, const std::function<bool(int)>& done, bool everything = false);
    // A GPU session failed: every encoder kept is closed and none is kept
    // again in this run.
    void stop_keeping();
    // Closes everything (the run's stages are over).
    void clear();

private:
    mutable std::mutex mu_;  // the kept encoders' own: guards what follows; a leaf (they close after it is released)
    std::map<std::pair<int, int>, IdleEncoder> kept_;  // (slot id, rung)
    bool stopped_ = false;
};

}  // namespace ladder::engine
