#include "engine/rung/journaled_chunk_route.hpp"

namespace ladder::engine {

ChunkDone journaled_chunk_done(int rung, const std::string& rung_name, const EncodedChunk& chunk) {
    ChunkDone done;
    done.rung = rung;
    done.rung_name = rung_name;
    done.chunk = chunk.index;
    done.frames = chunk.frame_count;
    done.bytes = chunk.bytes;
    done.slot = chunk.slot_label;
    return done;
}

JournaledChunkRoute::JournaledChunkRoute(const ChunkJournal& journal, std::vector<RungRuntime>& rungs,
                                         ProgressSink& progress)
    : journal_(journal), rungs_(rungs), progress_(progress) {}

bool JournaledChunkRoute::take(const RawChunk& raw) {
    if (!journal_.resuming()) return false;
    RungRuntime& rt = rungs_[static_cast<std::size_t>(raw.rung)];
    auto chunk = journal_.load(raw.rung, rt.rung.name, raw.index);
    if (!chunk || chunk->first_frame != raw.first_frame ||
        chunk->frame_count != static_cast<std::int64_t>(raw.frames.size()) || !rt.invariant->check(*chunk).accepted)
        return false;
    progress_.chunk_done(journaled_chunk_done(raw.rung, rt.rung.name, *chunk));
    if (rt.finalizer) rt.finalizer->deliver(std::move(*chunk));
    ++taken_;
    return true;
}

}  // namespace ladder::engine
