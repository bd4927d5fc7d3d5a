#include "engine/chunk_scheduler.hpp"

namespace ladder::engine {

ChunkScheduler::ChunkScheduler(std::vector<std::int64_t> pixels_per_rung, std::size_t queue_capacity)
    : pixels_(std::move(pixels_per_rung)) {
    for (std::size_t i = 0; i < pixels_.size(); ++i)
        queues_.push_back(std::make_unique<SegmentChunkQueue>(queue_capacity, [this] { notify(); }));
}

void ChunkScheduler::notify() {
    {
        std::lock_guard lock(mu_);
        ++generation_;
    }
    cv_.notify_all();
}

std::optional<RawChunk> ChunkScheduler::try_next() {
    int best = -1;
    int best_index = 0;
    for (std::size_t r = 0; r < queues_.size(); ++r) {
        int idx = queues_[r]->front_index();
        if (idx < 0) continue;
        if (best < 0 || idx < best_index ||
            (idx == best_index && pixels_[r] > pixels_[static_cast<std::size_t>(best)])) {
            best = static_cast<int>(r);
            best_index = idx;
        }
    }
    if (best < 0) return std::nullopt;
    return queues_[static_cast<std::size_t>(best)]->try_pop();
}

std::optional<RawChunk> ChunkScheduler::next(std::stop_token stop) {
    for (;;) {
        std::uint64_t seen;
        {
            std::lock_guard lock(mu_);
            seen = generation_;
        }
        if (auto c = try_next()) return c;
        bool all_drained = true;
        for (const auto& q : queues_) all_drained = all_drained && q->drained();
        if (all_drained) return std::nullopt;
        std::unique_lock lock(mu_);
        if (!cv_.wait(lock, stop, [&] { return generation_ != seen; })) return std::nullopt;
    }
}

}  // namespace ladder::engine
