#pragma once
// Which devices a run may encode on (`--policy`), and which of them could
// encode AV1 according to the inventory. The engine's pre-flight then opens a
// real encoder on each selected device; nothing here touches a device the
// policy excluded.
#include <optional>
#include <string>
#include <vector>

#include "gpu/device_inventory.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::gpu {

enum class PolicyKind { automatic, all_gpus, gpu_list, nvidia, intel, cpu };

struct EncodePolicy {
    PolicyKind kind = PolicyKind::automatic;
    std::vector<int> gpus;  // gpu_list only, in the order given
    std::string text;       // as the user wrote it, for messages
    // Who drives NVENC on the NVIDIA GPUs selected (--nvenc-client).
    NvencClient nvenc = NvencClient::ladder;

    // The policy must encode on GPUs: no usable one is an error, not a fallback.
    bool requires_gpu() const { return kind != PolicyKind::automatic && kind != PolicyKind::cpu; }
    bool wants_gpus() const { return kind != PolicyKind::cpu; }
};

// "auto", "all-gpus", "gpu:0,2", "nvidia", "intel", "cpu"; throws
// std::invalid_argument with a message that says what is accepted.
EncodePolicy parse_encode_policy(const std::string& text);

// A GPU the policy selected, with the encoder ladder would use on it and
// why it cannot (empty when the inventory says it can).
struct GpuCandidate {
    int index = 0;
    DeviceKind kind = DeviceKind::nvidia;
    std::string name;
    std::string encoder;  // ladder-nvenc, av1_nvenc or av1_qsv
    std::string device;   // CUDA ordinal or DRM render node, for the hw device context
    std::string problem;
    // The driver's cap on NVENC sessions open at once, shared by every GPU
    // that has one (GeForce cards: per system); none for data-center cards.
    std::optional<int> shared_session_limit;
    // Its encoder engines (NV_ENC_CAPS_NUM_ENCODER_ENGINES; 0: unknown): the
    // sessions it gets by default, one per engine, so that every engine
    // has a session to encode.
    int engines = 0;

    std::string describe() const;  // "GPU 0 NVIDIA H100 80GB HBM3"
};

struct PolicySelection {
    std::vector<GpuCandidate> gpus;
    // Why the selection is empty or short: "no NVIDIA GPU: NVML library
    // libnvidia-ml.so.1 not found", one entry per family the policy asked for.
    std::vector<std::string> absent;
};

// Throws std::invalid_argument when gpu:I names an index the machine lacks.
PolicySelection select_gpus(const EncodePolicy& policy, const DeviceInventory& inventory);

// The smallest shared session cap among the candidates (GeForce cards), if
// any has one.
std::optional<int> shared_session_cap(const std::vector<GpuCandidate>& candidates);

// The sessions a candidate is asked for: sessions_per_gpu, or (0) one per
// encoder engine; at least one.
int sessions_wanted(const GpuCandidate& candidate, int sessions_per_gpu);

// How many sessions each usable candidate gets: sessions_per_gpu (0: one
// per encoder engine of the GPU, at least one), except that GPUs under a
// shared session cap (GeForce) never have more open at once, all of them
// together, than the cap; they share it evenly.
std::vector<int> sessions_per_candidate(const std::vector<GpuCandidate>& usable, int sessions_per_gpu);

// Encoder sessions for the usable candidates (sessions_per_candidate each),
// labelled "gpu0:nvenc", "gpu0:nvenc.2". Slot ids start at first_id.
std::vector<EncoderSlot> make_gpu_slots(const std::vector<GpuCandidate>& usable, int sessions_per_gpu, int first_id);

// Every unusable candidate and absent family, "; "-joined, for one-line errors.
std::string describe_unusable(const PolicySelection& selection);

}  // namespace ladder::gpu
