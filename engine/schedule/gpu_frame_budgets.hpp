#pragma once
// The memory budgets of the GPUs whose memory holds chunks (NVDEC decoding
// for NVENC sessions on the same GPU): one per GPU, from its own size, so a
// small card is never asked for more than its share while a large one next
// to it holds more.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "engine/schedule/device_plan.hpp"
#include "engine/schedule/frame_budget.hpp"
#include "engine/base/memory_budget.hpp"

namespace ladder::engine {

class GpuFrameBudgets {
public:
    // No budgets (the frames are copied to host memory) when the plan does
    // not keep frames on the GPUs, or when a GPU's default share holds less
    // than one chunk; note then says why. asked: --gpu-memory-budget, per
    // GPU (0: a quarter of each). Throws InputError as gpu_frame_budget().
    GpuFrameBudgets(const DevicePlan& devices, std::uint64_t asked, const ChunkBytes& chunk, std::string& note);

    bool empty() const { return budgets_.empty(); }
    // The budget of the GPU with this CUDA ordinal; null for another.
    MemoryBudget* of(int gpu) const;
    std::set<int> gpus() const;
    std::uint64_t largest_limit() const;
    std::uint64_t largest_peak() const;  // the most any one GPU held at once

private:
    std::map<int, std::unique_ptr<MemoryBudget>> budgets_;
};

}  // namespace ladder::engine
