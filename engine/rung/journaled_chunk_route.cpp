#include "engine/rung/journaled_chunk_route.hpp"

#include "engine/rung/chunk_delivery.hpp"

namespace ladder::engine {

JournaledChunkRoute::JournaledChunkRoute(const ChunkJournal& journal, std::vector<RungRuntime>& rungs,
                                         ProgressSink& progress)
    : journal_(journal), rungs_(rungs), progress_(progress) {}

bool JournaledChunkRoute::take(const RawChunk& raw) {
    if (!journal_.resuming()) return false;
    RungRuntime& rt = rungs_[static_cast<std::size_t>(raw.rung)];
    auto chunk = journal_.load(raw.rung, rt.rung.name, raw.index);
    if (!chunk || chunk->first_frame != raw.first_frame ||
        chunk->frame_count != static_cast<std::int64_t>(raw.frames.size()))
        return false;
    ChunkDelivery delivery(raw.rung, rt, nullptr, progress_);
    auto checked = delivery.check(std::move(*chunk));
    if (!checked.accepted) return false;  // the scaler queues it for encoding
    delivery.deliver(std::move(*checked.accepted), ChunkOrigin::journal);
    ++taken_;
    return true;
}

}  // namespace ladder::engine
