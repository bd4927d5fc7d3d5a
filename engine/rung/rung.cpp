#include "engine/rung/rung.hpp"

namespace ladder::engine {

Rung::Rung(RungParts parts, ProgressSink& progress)
    : index_(parts.index),
      spec_(std::move(parts.spec)),
      settings_(parts.settings),
      invariant_(std::move(parts.invariant)),
      rate_(std::move(parts.rate)),
      writer_(std::move(parts.writer)),
      journal_(parts.journal),
      progress_(progress),
      joiner_(spec_.name, parts.chunk_frames, 0) {}

void Rung::share_by(const ChunkComplexity* complexity) {
    complexity_ = complexity;
    // A session asking by complexity can overshoot where its share was too
    // large: later sessions make it up.
    if (complexity_ && rate_) rate_->make_up_overshoots();
}

RungScaler& Rung::add_scaler(std::unique_ptr<RungScaler> scaler) {
    scalers_.push_back(std::move(scaler));
    return *scalers_.back();
}

Rung::Checked Rung::check(EncodedChunk chunk) {
    auto verdict = invariant_->check(chunk);
    if (!verdict.accepted) return {std::nullopt, std::move(verdict.differences)};
    return {AcceptedChunk(std::move(chunk)), {}};
}

void Rung::deliver(AcceptedChunk accepted, ChunkOrigin origin, double encode_seconds) {
    EncodedChunk& chunk = accepted.chunk_;
    if (origin == ChunkOrigin::encoded && journal_) journal_->record(chunk, spec_.name);
    ChunkDone event;
    event.rung = index_;
    event.rung_name = spec_.name;
    event.chunk = chunk.index;
    event.frames = chunk.frame_count;
    event.bytes = chunk.bytes;
    event.slot = chunk.slot_label;
    event.encode_seconds = encode_seconds;
    progress_.chunk_done(event);
    if (writer_) writer_->deliver(std::move(chunk));
}

bool Rung::take_from_journal(const RawChunk& raw) {
    if (!journal_ || !journal_->resuming()) return false;
    auto chunk = journal_->load(index_, spec_.name, raw.index);
    if (!chunk || chunk->first_frame != raw.first_frame ||
        chunk->frame_count != static_cast<std::int64_t>(raw.frames.size()))
        return false;
    chunk->ends_rung = raw.ends_rung;
    auto checked = check(std::move(*chunk));
    if (!checked.accepted) return false;  // the scaler queues it for encoding
    deliver(std::move(*checked.accepted), ChunkOrigin::journal);
    ++resumed_;
    return true;
}

}  // namespace ladder::engine
