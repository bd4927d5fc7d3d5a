#pragma once
// How many bytes of raw frames may wait for encoding, in host memory and,
// when the frames stay on the GPU that decoded them (NVDEC feeding NVENC on
// the same GPU), in that GPU's memory instead: a user's budget when given,
// else a quarter of the memory there.
#include <cstdint>
#include <optional>
#include <string>

#include "engine/plan/ladder_spec.hpp"

extern "C" {
#include <libavutil/pixfmt.h>
}

namespace ladder::engine {

struct ChunkBytes {
    std::uint64_t bytes = 0;  // one chunk of the rung
    std::string rung;
    int frames = 0;
};

// The largest rung's chunk: the smallest budget a run can work with.
ChunkBytes largest_chunk(const LadderSpec& ladder, AVPixelFormat pix_fmt, int chunk_frames);

// --memory-budget (asked, 0: not given) or a quarter of the available host
// memory, at least two chunks. Throws InputError when asked is below one.
std::uint64_t host_frame_budget(std::uint64_t asked, std::uint64_t available, const ChunkBytes& chunk);

// --gpu-memory-budget (asked, 0: not given) or a quarter of the GPU's
// memory (gpu_total, from NVML; 0: unknown). nullopt when the default share
// cannot hold one chunk or the GPU's size is unknown: the frames are then
// copied to host memory. Throws InputError when asked is below one chunk
// or above the GPU's memory.
std::optional<std::uint64_t> gpu_frame_budget(std::uint64_t asked, std::uint64_t gpu_total, const ChunkBytes& chunk);

}  // namespace ladder::engine
