#pragma once
// Room engine/encode/process/: CPU encoders in processes of their own:
// started, fed through a socket and a shared frame ring, killed and reaped.
// May include: base, media, plan, encode/backend.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// CPU encoders in encoder processes (engine/encode/process/encoder_process.hpp): a crash,
// an abort or a hang inside SVT-AV1 or libaom costs the chunks of the session
// not back yet (they go back through the fault path: another slot,
// quarantine), never the run. Each CPU slot has its own process, started when the slot first
// encodes and again after its process crashed or hung; frames travel
// through a shared memory ring (engine/encode/process/shared_frame_ring.hpp), packets and
// errors come back over the socket.
//
// GPU slots stay in ladder's process: their frames may live in GPU memory,
// which another process could only reach through a copy or CUDA IPC, and
// their NVENC/Quick Sync sessions share one device context per GPU.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/encode/process/encoder_process.hpp"
#include "engine/encode/process/shared_frame_ring.hpp"

namespace ladder::engine {

class EncoderProcesses {
public:
    // stall_timeout: how long an encoder process may go without taking a
    // frame or returning a packet, for frames of 1920x1080 or less (larger
    // frames get proportionally longer). Then it is killed as hung.
    explicit EncoderProcesses(std::chrono::milliseconds stall_timeout) : stall_timeout_(stall_timeout) {}
    ~EncoderProcesses();
    EncoderProcesses(const EncoderProcesses&) = delete;
    EncoderProcesses& operator=(const EncoderProcesses&) = delete;

    struct Slot {
        std::unique_ptr<EncoderProcess> process;
        std::unique_ptr<SharedFrameRing> ring;
        std::uint64_t requests = 0;
        int started = 0;  // processes started for this slot
    };
    // A slot's entry. Only the holder of the slot's lease uses it.
    Slot& slot(int id);
    // Processes started per slot id (for the report).
    std::map<int, int> started() const;
    // For a run that stopped, once every thread that used them was joined:
    // every process is killed at once instead of being given up to a second
    // to end on its own (an idle one may be tearing down an encoder), so
    // that the run ends within 2 s of a SIGTERM.
    void kill_all();
    std::chrono::milliseconds stall_timeout() const { return stall_timeout_; }

private:
    std::chrono::milliseconds stall_timeout_;
    mutable std::mutex mu_;  // EncoderProcesses' own: guards the map (a Slot is its lease holder's); a leaf
    std::map<int, std::unique_ptr<Slot>> slots_;
};

// An encoder for a CPU slot that runs in the slot's encoder process.
std::unique_ptr<EncoderBackend> make_process_encoder(EncoderProcesses& processes, const gpu::EncoderSlot& slot,
                                                     const EncoderSettings& settings);

// CPU slots in encoder processes, GPU slots in this one.
EncoderFactory process_encoder_factory(EncoderProcesses& processes);

}  // namespace ladder::engine
