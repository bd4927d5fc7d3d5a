#include "gpu/cpu_info.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace ladder::gpu {

namespace {

int usable_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
}

std::uint64_t mem_available() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit) {
        if (key == "MemAvailable:") return kb * 1024;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto pos = line.find(':');
            if (pos != std::string::npos) return line.substr(pos + 2);
        }
    }
    return "unknown";
}

}  // namespace

CpuInfo read_cpu_info() { return CpuInfo{usable_cores(), mem_available(), cpu_model()}; }

std::string cpu_encoder_name(const std::string& short_name) {
    for (const EncoderTraits& t : all_encoder_traits())
        if (!t.gpu() && (short_name == t.short_name || short_name == t.name)) return std::string(t.name);
    throw std::invalid_argument(fmt::format("unknown CPU encoder '{}' (use svt or aom)", short_name));
}

bool encoder_available(const std::string& encoder_name) {
    return avcodec_find_encoder_by_name(encoder_name.c_str()) != nullptr;
}

CpuSlotLayout default_cpu_slot_layout(const CpuInfo& cpu) {
    // Below 16 cores, one single-thread session per core: on 2 cores two
    // slots of 1 thread beat one of 2 by 1.18-1.28x (SVT-AV1 at lp=1 spends
    // less CPU per frame), and on 8 cores 8 slots of 1 thread beat 2 of 4 by
    // 1.10-1.17x. From 16 cores on, 16 single-thread sessions starting at
    // once left the rung's rate feedback nothing to correct them with, and
    // sessions of 4 threads on 4 cores leave 15-20% of them idle (SVT-AV1's
    // own waits); half as many sessions as cores with 3 threads each
    // overlap those waits: 90% busy and 1-9% faster than 4 x 4 on 16
    // cores, for 3-10% more CPU (docs/benchmarks.md, "16 cores: sessions
    // of 3 threads, one per 2 cores").
    constexpr int kCoresForWideSlots = 16;
    constexpr int kCoresPerWideSlot = 2;
    constexpr int kThreadsPerWideSlot = 3;
    CpuSlotLayout layout;
    if (cpu.cores >= kCoresForWideSlots) {
        layout.count = std::min(cpu.cores / kCoresPerWideSlot, 64);
        layout.threads = std::max(kThreadsPerWideSlot, kThreadsPerWideSlot * cpu.cores / (kCoresPerWideSlot * layout.count));
    } else {
        layout.count = std::max(cpu.cores, 1);
    }
    // A 1080p SVT-AV1 session with its queued frames needs about 1 GiB;
    // never plan more sessions than memory holds.
    constexpr std::uint64_t per_slot = 1ull << 30;
    const int by_memory =
        std::max(1, cpu.available_memory_bytes ? static_cast<int>(cpu.available_memory_bytes / per_slot) : 1);
    if (layout.count > by_memory) {
        layout.count = by_memory;
        layout.threads = std::max(1, cpu.cores / by_memory);
    }
    return layout;
}

std::vector<EncoderSlot> make_cpu_slots(const std::string& encoder_name, int count, const CpuInfo& cpu,
                                        int threads) {
    if (count <= 0) {
        const CpuSlotLayout layout = default_cpu_slot_layout(cpu);
        count = layout.count;
        if (threads <= 0) threads = layout.threads;
    }
    if (threads <= 0) threads = std::max(1, cpu.cores / count);
    const EncoderTraits* traits = find_encoder_traits(encoder_name);
    const std::string short_name = traits ? std::string(traits->short_name) : encoder_name;
    std::vector<EncoderSlot> slots;
    for (int i = 0; i < count; ++i) {
        EncoderSlot s;
        s.kind = DeviceKind::cpu;
        s.set_encoder(encoder_name);
        s.threads = threads;
        s.label = fmt::format("cpu{}:{}", i, short_name);
        slots.push_back(std::move(s));
    }
    return slots;
}

std::vector<EncoderSlot> make_cpu_slots(const std::vector<std::pair<std::string, int>>& mix, const CpuInfo& cpu,
                                        int threads) {
    if (mix.size() == 1) return make_cpu_slots(mix[0].first, mix[0].second, cpu, threads);
    int total = 0;
    for (const auto& [name, count] : mix) total += std::max(1, count);
    if (threads <= 0) threads = std::max(1, cpu.cores / std::max(1, total));
    std::vector<EncoderSlot> slots;
    for (const auto& [name, count] : mix) {
        for (auto s : make_cpu_slots(name, std::max(1, count), cpu)) {
            s.threads = threads;
            const auto colon = s.label.find(':');
            s.label = fmt::format("cpu{}{}", slots.size(), s.label.substr(colon));
            slots.push_back(std::move(s));
        }
    }
    return slots;
}

std::vector<std::pair<std::string, int>> parse_encoder_mix(const std::string& text) {
    std::vector<std::pair<std::string, int>> mix;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const auto comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        const auto colon = item.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == item.size() ||
            item.find_first_not_of("0123456789", colon + 1) != std::string::npos || item.size() - colon > 4)
            throw std::invalid_argument(
                fmt::format("--cpu-encoders '{}': expected ENCODER:COUNT[,ENCODER:COUNT...] such as svt:2,aom:1", text));
        const int count = std::stoi(item.substr(colon + 1));
        if (count < 1) throw std::invalid_argument(fmt::format("--cpu-encoders '{}': counts start at 1", text));
        mix.emplace_back(cpu_encoder_name(item.substr(0, colon)), count);
        pos = comma + 1;
    }
    return mix;
}

}  // namespace ladder::gpu
