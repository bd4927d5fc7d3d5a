#pragma once
// What the CPU side of the machine offers: usable cores (affinity-aware, so
// a container's cpuset is respected), memory, and the software AV1 encoders
// this libavcodec build has.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpu/gpu_pool.hpp"

namespace ladder::gpu {

struct CpuInfo {
    int cores = 1;
    std::uint64_t available_memory_bytes = 0;
    std::string model;
};

CpuInfo read_cpu_info();

// Encoder name for the CLI's short form: "svt" -> "libsvtav1", "aom" -> "libaom-av1".
std::string cpu_encoder_name(const std::string& short_name);
bool encoder_available(const std::string& encoder_name);

struct CpuSlotLayout {
    int count = 1;    // concurrent encoder sessions
    int threads = 1;  // encoder threads each
};
// The CPU sessions to run when the user did not say: one single-thread
// session per core below 16 cores; from 16 on, one per 2 cores with 3
// threads each (1.5 threads per core); never more sessions than memory
// holds (then cores / sessions threads each).
CpuSlotLayout default_cpu_slot_layout(const CpuInfo& cpu);
// CPU slots for `count` sessions of one encoder. count = 0: the default
// layout above. Threads per slot: `threads`; with 0, the default layout's,
// or for a given count split so that slots x threads ~= cores.
std::vector<EncoderSlot> make_cpu_slots(const std::string& encoder_name, int count, const CpuInfo& cpu,
                                        int threads = 0);
// Several encoders: {encoder name, count} each (a count of 0 = as above).
std::vector<EncoderSlot> make_cpu_slots(const std::vector<std::pair<std::string, int>>& mix, const CpuInfo& cpu,
                                        int threads = 0);
// "svt:2,aom:1" -> {{"libsvtav1", 2}, {"libaom-av1", 1}}; throws invalid_argument.
std::vector<std::pair<std::string, int>> parse_encoder_mix(const std::string& text);

}  // namespace ladder::gpu
