#include "engine/schedule/gpu_frame_budgets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace ladder::engine {

GpuFrameBudgets::GpuFrameBudgets(const DevicePlan& devices, std::uint64_t asked, const ChunkBytes& chunk,
                                 std::string& note) {
    if (!devices.keep_frames_on_gpu) {
        if (asked != 0)
            note = "--gpu-memory-budget does not apply: no frames wait on a GPU in this run (they do only with NVDEC "
                   "decoding for NVENC sessions on the same GPU)";
        return;
    }
    std::map<int, std::unique_ptr<MemoryBudget>> budgets;
    for (const DecodeGpu& g : devices.decode_gpus) {
        const auto bytes = gpu_frame_budget(asked, g.memory, chunk);
        if (!bytes) {
            note = fmt::format(
                "frames are copied to host memory after scaling: a quarter of {} ({} MiB) holds less than one chunk "
                "of rung {} ({} MiB); --gpu-memory-budget sets the share",
                g.label, g.memory / 4 / (1024 * 1024), chunk.rung, chunk.bytes / (1024 * 1024));
            return;
        }
        budgets.emplace(g.ordinal, std::make_unique<MemoryBudget>(*bytes));
    }
    budgets_ = std::move(budgets);
}

MemoryBudget* GpuFrameBudgets::of(int gpu) const {
    auto it = budgets_.find(gpu);
    return it == budgets_.end() ? nullptr : it->second.get();
}

std::set<int> GpuFrameBudgets::gpus() const {
    std::set<int> out;
    for (const auto& [gpu, budget] : budgets_) out.insert(gpu);
    return out;
}

std::uint64_t GpuFrameBudgets::largest_limit() const {
    std::uint64_t most = 0;
    for (const auto& [gpu, budget] : budgets_) most = std::max(most, budget->limit());
    return most;
}

std::uint64_t GpuFrameBudgets::largest_peak() const {
    std::uint64_t most = 0;
    for (const auto& [gpu, budget] : budgets_) most = std::max(most, budget->peak());
    return most;
}

}  // namespace ladder::engine
