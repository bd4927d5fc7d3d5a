#pragma once
// Pre-flight for devices: which encoder sessions the run gets (GPU slots
// from the policy, after a real encoder has been opened on each selected
// GPU; CPU slots as fallback or on request) and where the source is decoded
// (CPU, or NVDEC on the policy's first NVIDIA GPU). Everything that can be
// wrong with the devices fails here, before a thread starts.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "av/handles.hpp"
#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/source/source_info.hpp"
#include "gpu/device_inventory.hpp"
#include "gpu/encode_policy.hpp"

namespace ladder::engine {

enum class DecodeMode { automatic, cpu, nvdec };

struct DeviceRequest {
    gpu::EncodePolicy policy;
    int sessions_per_gpu = 0;  // 0: one per NVENC engine of each GPU
    DecodeMode decode = DecodeMode::automatic;
    // CPU sessions: {encoder, count}; used when the policy is cpu, when no
    // GPU can encode under auto, and next to GPUs when cpu_requested.
    std::vector<std::pair<std::string, int>> cpu_mix;
    bool cpu_requested = false;  // --cpu-slots N or --cpu-encoders given
    int cpu_threads = 0;         // encoder threads per CPU session; 0: the default layout's, or cores / sessions
    // Empty: gpu::probe_devices(). Tests substitute a machine.
    std::function<gpu::DeviceInventory()> inventory;
    EncoderFactory encoder_factory;  // empty: make_encoder_backend
};

// A GPU that decodes the source with NVDEC (engine/source/decode_lanes.hpp).
struct DecodeGpu {
    av::BufferRefPtr device;   // its CUDA context
    std::string label;         // "GPU 0 NVIDIA H100 80GB HBM3 (NVDEC)"
    int ordinal = -1;          // its CUDA ordinal
    std::uint64_t memory = 0;  // its memory (NVML); 0: unknown
};

struct DevicePlan {
    std::vector<gpu::EncoderSlot> slots;
    // The GPUs that decode: the policy's first NVIDIA GPU, then its others
    // that can decode the source too, for decode lanes; when frames stay on
    // the GPUs, only those with NVENC slots. Empty: decode on the CPU.
    std::vector<DecodeGpu> decode_gpus;
    // "cpu", or the first decoding GPU's label.
    std::string decode_label() const { return decode_gpus.empty() ? "cpu" : decode_gpus.front().label; }
    // Every slot is NVENC on a GPU that decodes too: a chunk stays in the
    // memory of the GPU that decoded it, for that GPU's sessions.
    bool keep_frames_on_gpu = false;
    std::vector<std::string> dropped;  // "GPU 0 NVIDIA H100: no NVENC engine"
    int encoder_probes = 0;            // test encoders the pre-flight opened
    // What the run should say once the whole pre-flight has passed (a usage
    // error found later must stay the only line on stderr).
    std::vector<std::pair<NoteLevel, std::string>> notes;
    // When each step of planning ended ("gpu_inventory", "gpu_encoder_probes",
    // "decode_devices"), for report.json's phase_seconds.
    std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> steps;
};

// Frames stay on the GPU that decoded them when every slot is NVENC on a
// decoding GPU (CUDA ordinals, the first one decoding first) and the first
// one has sessions too: a chunk left where no session can take it would
// wait forever.
bool frames_can_stay(const std::vector<gpu::EncoderSlot>& slots, const std::vector<int>& decoding_gpus);

// probe_settings: a rung's encoder settings, used to open a test encoder on
// each selected GPU. Throws InputError when the policy cannot be met.
DevicePlan plan_devices(const DeviceRequest& request, const SourceInfo& source, const EncoderSettings& probe_settings);

}  // namespace ladder::engine
