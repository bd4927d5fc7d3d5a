#pragma once
// The pool of encoder sessions ("slots"): one per GPU encoder session the
// policy allows, or one per CPU encoder session. Claims are FIFO-fair, a
// waiting primary claimer goes before any helper, and a lease gives its slot
// back when destroyed (RAII), also when an exception unwinds through it.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "gpu/device_kind.hpp"
#include "gpu/encoder_traits.hpp"

namespace ladder::gpu {

struct EncoderSlot {
    int id = 0;                 // index in the pool
    DeviceKind kind = DeviceKind::cpu;
    std::string encoder;        // libavcodec encoder name: libsvtav1, libaom-av1, ...
    int device_index = -1;      // ladder's GPU index; -1 for the CPU
    // What av_hwdevice_ctx_create takes for this GPU: the CUDA ordinal for
    // NVENC, the DRM render node for Quick Sync; empty for the CPU.
    std::string device;
    int threads = 1;            // encoder threads for CPU sessions
    // The GPU's driver caps sessions open at once (GeForce): the slot never
    // holds more than the one it encodes with.
    bool session_capped = false;
    std::string label;          // for reports: "cpu0:svt", "gpu1:nvenc"
    // The encoder's record (gpu/encoder_traits.hpp), looked up once by
    // set_encoder; nullptr for an encoder ladder does not drive (refused
    // by the pre-flight before anything asks).
    const EncoderTraits* traits_record = nullptr;

    // Names the slot's encoder and looks up its record.
    void set_encoder(std::string name);
    // The encoder's record; throws std::logic_error for a slot whose
    // encoder has none.
    const EncoderTraits& traits() const;
};

// The CUDA ordinal of an NVENC slot's GPU; -1 for any other slot.
int nvenc_gpu(const EncoderSlot& slot);

enum class ClaimPriority { primary, helper };

class GpuPool;

class GpuLease {
public:
    GpuLease() = default;
    GpuLease(GpuLease&& other) noexcept;
    GpuLease& operator=(GpuLease&& other) noexcept;
    GpuLease(const GpuLease&) = delete;
    GpuLease& operator=(const GpuLease&) = delete;
    ~GpuLease();

    explicit operator bool() const { return pool_ != nullptr; }
    const EncoderSlot& slot() const;
    // Gives the slot back before destruction.
    void release();
    // Takes the slot out of the pool for the rest of its life (a
    // quarantined or finished encoder session); the lease becomes empty.
    void retire();

private:
    friend class GpuPool;
    GpuLease(GpuPool* pool, int slot) : pool_(pool), slot_(slot) {}
    GpuPool* pool_ = nullptr;
    int slot_ = -1;
};

class GpuPool {
public:
    explicit GpuPool(std::vector<EncoderSlot> slots);
    GpuPool(const GpuPool&) = delete;
    GpuPool& operator=(const GpuPool&) = delete;
    ~GpuPool();

    // Blocks until a slot is free and this claimer is first in line. Returns
    // nullopt when stop is requested first.
    std::optional<GpuLease> claim(ClaimPriority priority, std::stop_token stop = {});
    std::optional<GpuLease> try_claim(ClaimPriority priority);

    const std::vector<EncoderSlot>& slots() const { return slots_; }
    std::size_t size() const { return slots_.size(); }
    std::size_t available() const;
    // Total number of leases handed out so far (for tests and reports).
    std::uint64_t leases_granted() const;

private:
    friend class GpuLease;
    void give_back(int slot);
    void take_out(int slot);
    bool my_turn(std::uint64_t ticket, ClaimPriority priority) const;
    GpuLease take(std::uint64_t ticket, ClaimPriority priority);

    std::vector<EncoderSlot> slots_;
    mutable std::mutex mu_;
    std::condition_variable_any cv_;
    std::deque<int> free_;                  // slot ids, least recently used first
    std::deque<std::uint64_t> primary_line_;
    std::deque<std::uint64_t> helper_line_;
    std::uint64_t next_ticket_ = 0;
    std::uint64_t granted_ = 0;
    std::size_t retired_ = 0;
};

}  // namespace ladder::gpu
