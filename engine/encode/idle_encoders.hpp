#pragma once
// The GPU encoders no session uses now, kept open per GPU and rung: a slot
// that goes to a rung goes on with an encoder kept for it on its GPU
// instead of opening another (an NVENC session takes about a fifth of a
// second to open). An encoder belongs to its GPU, not to the slot that
// opened it: the GPU's slots are only how many of its sessions encode at
// once, so any of them may take it. Only GPU encoders
// (EncoderTraits::controls_session_rate), and no more once a GPU session
// failed: a driver may cap sessions without saying so, and kept encoders
// would then starve the other slots. Under a cap the driver does announce
// (GeForce: slots x 1 within it) a slot closes the GPU's kept encoders
// before it opens one (EncoderWorker::open_session), so the GPU never holds
// more than its slots.
//
// Encoders may also be opened ahead (open_ahead), on the caller's thread or
// on one of their own: take() for their GPU and rung, with none kept, waits
// until such an open is over, which is never longer than opening anew.
//
// Owned by the run; every call takes its lock. An encoder is in here only
// while no session uses it. Encoders are closed outside the lock; the
// opening threads end by clear() (or the destructor).
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
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
    // Opens an encoder for a GPU and rung; nullopt when it would not open.
    using Opener = std::function<std::optional<IdleEncoder>()>;

    IdleEncoders() = default;
    ~IdleEncoders();
    IdleEncoders(const IdleEncoders&) = delete;
    IdleEncoders& operator=(const IdleEncoders&) = delete;

    // An encoder kept for the slot's GPU and the rung, taken out; nullopt
    // when none. With none kept, waits while one is being opened for them.
    std::optional<IdleEncoder> take(const gpu::EncoderSlot& slot, int rung);
    // Keeps the encoder (moved from) and returns true; false, leaving it to
    // the caller to finish, when the slot may not keep one.
    bool keep(const gpu::EncoderSlot& slot, int rung, IdleEncoder& encoder);
    // Opens an encoder for the slot's GPU and the rung with `open`, on this
    // thread (in_background false) or on a thread of its own, unless `most`
    // (at least 1) were opened ahead for them already, by any slot of the
    // GPU on any thread, or the slot may not keep one. On this thread: true
    // when the encoder opened and is kept; on its own: true when the thread
    // started. What `open` throws counts as not opened.
    bool open_ahead(const gpu::EncoderSlot& slot, int rung, Opener open, bool in_background, int most);
    // Whether an encoder for the slot's GPU and the rung is kept or opening.
    bool holds(const gpu::EncoderSlot& slot, int rung) const;
    // Closes the encoders kept on the slot's GPU for the rungs `done` says
    // are done (every one with `everything`). `done` is called without the
    // lock held.
    void close(const gpu::EncoderSlot& slot, const std::function<bool(int)>& done, bool everything = false);
    // A GPU session failed: every encoder kept is closed and none is kept
    // again in this run.
    void stop_keeping();
    // Closes everything once the opening threads ended (the run's stages are
    // over).
    void clear();

    // Encoders opened ahead, and those of them closed without a session
    // (report.json: gpu_encoders_opened_ahead, gpu_encoders_never_used).
    struct AheadCounts {
        int opened = 0;
        int never_used = 0;
    };
    AheadCounts ahead_counts() const;

private:
    // (GPU, encoder, rung): a GPU's encoders of one kind for one rung.
    using Place = std::tuple<int, std::string, int>;
    static Place place(const gpu::EncoderSlot& slot, int rung);
    static bool may_keep(const gpu::EncoderSlot& slot);
    bool opened(const Place& where, std::optional<IdleEncoder> encoder);  // true: kept
    void join_openers();
    // Counts those still as opened ahead (no session took them) among
    // encoders about to close; requires mu_.
    void count_never_used(const std::multimap<Place, IdleEncoder>& closing);

    mutable std::mutex mu_;  // the kept encoders' own: guards what follows; a leaf (they close after it is released)
    std::condition_variable opened_cv_;  // an open ahead ended
    std::multimap<Place, IdleEncoder> kept_;
    std::multiset<Place> opening_;  // opens ahead not over yet
    std::multiset<Place> ahead_of_;  // opens ahead started, ever
    bool stopped_ = false;
    AheadCounts ahead_;
    std::vector<std::jthread> openers_;  // last: joined before the rest goes
};

}  // namespace ladder::engine
