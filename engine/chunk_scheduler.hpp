#pragma once
// Owns the rungs' SegmentChunkQueues and hands each free encoder worker the
// oldest waiting chunk across all rungs (ties: the rung with the most pixels
// first). Oldest-first keeps every rung's queue moving, so the pump is never
// blocked on a rung nobody serves.
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

#include "engine/segment_chunk_queue.hpp"

namespace ladder::engine {

class ChunkScheduler {
public:
    // pixels_per_rung: width x height of each rung, for tie-breaking.
    ChunkScheduler(std::vector<std::int64_t> pixels_per_rung, std::size_t queue_capacity);

    SegmentChunkQueue& queue(int rung) { return *queues_[static_cast<std::size_t>(rung)]; }
    std::size_t rung_count() const { return queues_.size(); }

    // Blocks until a chunk is available; nullopt when every queue is closed
    // and drained, or on stop.
    std::optional<RawChunk> next(std::stop_token stop);

private:
    void notify();
    std::optional<RawChunk> try_next();

    std::vector<std::int64_t> pixels_;
    std::vector<std::unique_ptr<SegmentChunkQueue>> queues_;
    std::mutex mu_;
    std::condition_variable_any cv_;
    std::uint64_t generation_ = 0;
};

}  // namespace ladder::engine
