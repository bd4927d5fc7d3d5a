#include "engine/rung/chunk_joiner.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "av/hw_device.hpp"
#include "engine/base/errors.hpp"

namespace ladder::engine {

ChunkJoiner::ChunkJoiner(std::string rung_name, int chunk_frames, int lanes)
    : rung_name_(std::move(rung_name)), chunk_frames_(chunk_frames), lanes_left_(lanes) {}

std::optional<RawChunk> ChunkJoiner::add(RawChunk piece, bool ends_source) {
    std::lock_guard lock(mu_);
    const int index = piece.index;
    Pieces& pieces = waiting_[index];
    pieces.ends_source = pieces.ends_source || ends_source;
    const std::int64_t first = piece.first_frame;
    const std::int64_t end = first + static_cast<std::int64_t>(piece.frames.size());
    for (const RawChunk& p : pieces.parts) {
        const std::int64_t p_end = p.first_frame + static_cast<std::int64_t>(p.frames.size());
        if (first < p_end && p.first_frame < end)
            throw RunError(fmt::format("rung {}: frames {} to {} of chunk {} came from two decode lanes", rung_name_,
                                       std::max(first, p.first_frame), std::min(end, p_end) - 1, index));
    }
    auto at = std::find_if(pieces.parts.begin(), pieces.parts.end(),
                           [&](const RawChunk& p) { return p.first_frame > first; });
    pieces.parts.insert(at, std::move(piece));
    return take_if_whole(index);
}

std::optional<RawChunk> ChunkJoiner::take_if_whole(int index) {
    Pieces& pieces = waiting_.at(index);
    std::int64_t next = static_cast<std::int64_t>(index) * chunk_frames_;
    for (const RawChunk& p : pieces.parts) {
        if (p.first_frame != next) return std::nullopt;
        next += static_cast<std::int64_t>(p.frames.size());
    }
    const bool full = next == static_cast<std::int64_t>(index + 1) * chunk_frames_;
    if (!full && !pieces.ends_source) return std::nullopt;
    // The GPU that holds most of the chunk (the first such part on a tie).
    std::size_t home = 0;
    for (std::size_t i = 1; i < pieces.parts.size(); ++i)
        if (pieces.parts[i].frames.size() > pieces.parts[home].frames.size()) home = i;
    const int gpu = pieces.parts[home].gpu;
    for (const RawChunk& p : pieces.parts)
        if ((p.gpu < 0) != (gpu < 0))
            throw RunError(fmt::format("rung {}: chunk {} came partly in GPU memory, partly in host memory (one decode "
                                       "lane fell back to the CPU): use --decode cpu",
                                       rung_name_, index));
    AVBufferRef* pool = gpu >= 0 ? pieces.parts[home].frames.front()->hw_frames_ctx : nullptr;
    RawChunk whole;
    whole.rung = pieces.parts.front().rung;
    whole.index = index;
    whole.first_frame = pieces.parts.front().first_frame;
    whole.gpu = gpu;
    for (RawChunk& p : pieces.parts) {
        for (auto& f : p.frames)
            whole.frames.push_back(p.gpu != gpu && pool ? av::copy_to_gpu_pool(f.get(), pool) : std::move(f));
        whole.bytes += p.bytes;
    }
    if (pieces.ends_source) whole.ends_rung = RungEnd{index + 1, next};
    waiting_.erase(index);
    return whole;
}

bool ChunkJoiner::lane_done(bool reached_source_end) {
    std::lock_guard lock(mu_);
    source_end_seen_ = source_end_seen_ || reached_source_end;
    if (--lanes_left_ > 0) return false;
    if (!waiting_.empty()) {
        const auto& [index, pieces] = *waiting_.begin();
        throw RunError(fmt::format("rung {}: chunk {} is missing frames after every decode lane ended ({} piece(s), "
                                   "the first at frame {})",
                                   rung_name_, index, pieces.parts.size(), pieces.parts.front().first_frame));
    }
    if (!source_end_seen_)
        throw RunError(fmt::format("rung {}: no decode lane reached the source's end", rung_name_));
    return true;
}

}  // namespace ladder::engine

namespace ladder::engine {

void ChunkJoiner::add_lane() {
    std::lock_guard lock(mu_);
    ++lanes_left_;
}

}  // namespace ladder::engine
