#include "engine/rung/chunk_delivery.hpp"

namespace ladder::engine {

ChunkDelivery::ChunkDelivery(int rung_index, RungRuntime& rung, ChunkJournal* journal, ProgressSink& progress)
    : rung_index_(rung_index), rung_(rung), journal_(journal), progress_(progress) {}

ChunkDelivery::Checked ChunkDelivery::check(EncodedChunk chunk) {
    auto verdict = rung_.invariant->check(chunk);
    if (!verdict.accepted) return {std::nullopt, std::move(verdict.differences)};
    return {AcceptedChunk(std::move(chunk)), {}};
}

void ChunkDelivery::deliver(AcceptedChunk accepted, ChunkOrigin origin, double encode_seconds) {
    EncodedChunk& chunk = accepted.chunk_;
    if (origin == ChunkOrigin::encoded && journal_) journal_->record(chunk, rung_.rung.name);
    ChunkDone event;
    event.rung = rung_index_;
    event.rung_name = rung_.rung.name;
    event.chunk = chunk.index;
    event.frames = chunk.frame_count;
    event.bytes = chunk.bytes;
    event.slot = chunk.slot_label;
    event.encode_seconds = encode_seconds;
    progress_.chunk_done(event);
    if (rung_.finalizer) rung_.finalizer->deliver(std::move(chunk));
}

}  // namespace ladder::engine
