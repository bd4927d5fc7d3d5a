#include "engine/schedule/frame_budget.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/base/errors.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace ladder::engine {

ChunkBytes largest_chunk(const LadderSpec& ladder, AVPixelFormat pix_fmt, int chunk_frames) {
    ChunkBytes largest;
    for (const auto& r : ladder.rungs) {
        const auto bytes = static_cast<std::uint64_t>(av_image_get_buffer_size(pix_fmt, r.width, r.height, 1)) *
                           static_cast<std::uint64_t>(chunk_frames);
        if (bytes > largest.bytes) largest = ChunkBytes{bytes, r.name, chunk_frames};
    }
    return largest;
}

namespace {
void check_asked(const char* option, std::uint64_t asked, const ChunkBytes& chunk) {
    if (asked < chunk.bytes)
        throw InputError(fmt::format("{} {} bytes is below one chunk of rung {} ({} frames = {} bytes): raise it or "
                                     "shorten --segment-seconds",
                                     option, asked, chunk.rung, chunk.frames, chunk.bytes));
}
}  // namespace

std::uint64_t host_frame_budget(std::uint64_t asked, std::uint64_t available, const ChunkBytes& chunk) {
    if (asked == 0) return std::max<std::uint64_t>(available / 4, 2 * chunk.bytes);
    check_asked("--memory-budget", asked, chunk);
    return asked;
}

std::optional<std::uint64_t> gpu_frame_budget(std::uint64_t asked, std::uint64_t gpu_total, const ChunkBytes& chunk) {
    if (asked != 0) {
        check_asked("--gpu-memory-budget", asked, chunk);
        if (gpu_total != 0 && asked > gpu_total)
            throw InputError(fmt::format("--gpu-memory-budget {} bytes is more than the decoding GPU has ({} bytes): "
                                         "give at most its size, or leave it out for a quarter of it",
                                         asked, gpu_total));
        return asked;
    }
    if (gpu_total / 4 < chunk.bytes) return std::nullopt;
    return gpu_total / 4;
}

}  // namespace ladder::engine
