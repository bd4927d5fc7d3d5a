#pragma once
// Room engine/rung/: one rung during a run: its frames from the lanes scaled and
// cut into chunks (joined across lanes), its contract, rate and complexity, its writer,
// and the one way into that writer.
// May include: base, media, check, plan, source, encode/backend,
//   output, schedule.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// One rung, and everything its threads share: what it is asked to make
// (spec, encoder settings), its lanes' scalers and the joiner their pieces
// meet in, its codec contract, its rate state and its writer (none in a
// shard: the journal is its output). It is the one way into that writer for
// every chunk, whatever made it: the encoder workers' (encoded), --resume's
// (a chunk an interrupted run journaled, taken instead of encoding it) and
// `ladder stitch`'s (read back from the plan's journal). In this order,
// once: the contract checks the chunk (a refused one goes nowhere), a newly
// encoded one is journaled, it is reported done (ProgressSink::chunk_done),
// and it goes to the writer. What is each caller's own stays with it: the
// worker's encode, rate and slot bookkeeping and refusals; stitch's reads of
// the journal.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/chunk.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/output/chunk_journal.hpp"
#include "engine/output/rung_finalizer.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/rung/chunk_complexity.hpp"
#include "engine/rung/chunk_joiner.hpp"
#include "engine/rung/rung_codec_invariant.hpp"
#include "engine/rung/rung_rate_feedback.hpp"
#include "engine/rung/rung_scaler.hpp"

namespace ladder::engine {

// Where a chunk comes from: an encoder now, or a journal (--resume, stitch).
enum class ChunkOrigin { encoded, journal };

// A chunk the rung's contract accepted. Only Rung::check makes one and only
// Rung::deliver takes one, so nothing reaches a writer unchecked.
class AcceptedChunk {
public:
    EncodedChunk& chunk() { return chunk_; }
    const EncodedChunk& chunk() const { return chunk_; }

private:
    friend class Rung;
    explicit AcceptedChunk(EncodedChunk chunk) : chunk_(std::move(chunk)) {}
    EncodedChunk chunk_;
};

// What a rung is made of; the parts a command does not use stay empty.
struct RungParts {
    int index = 0;  // the rung's place in the ladder
    RungSpec spec;
    EncoderSettings settings;
    std::unique_ptr<RungCodecInvariant> invariant;  // required
    std::unique_ptr<RungRateFeedback> rate;         // null: no rate is asked (stitch)
    std::unique_ptr<RungFinalizer> writer;          // null in a shard
    // Encoded chunks are recorded here and, when it resumes, journaled ones
    // taken from it; null: neither (stitch reads its journal itself).
    ChunkJournal* journal = nullptr;
    int chunk_frames = 0;  // for the joiner (which waits for no lane until one is added)
};

class Rung {
public:
    Rung(RungParts parts, ProgressSink& progress);
    Rung(const Rung&) = delete;
    Rung& operator=(const Rung&) = delete;

    int index() const { return index_; }
    const RungSpec& spec() const { return spec_; }
    const std::string& name() const { return spec_.name; }
    const EncoderSettings& settings() const { return settings_; }
    RungRateFeedback* rate() { return rate_.get(); }
    const RungRateFeedback* rate() const { return rate_.get(); }
    RungFinalizer* writer() { return writer_.get(); }
    const RungFinalizer* writer() const { return writer_.get(); }
    // The contract of the finished rung, which the manifests describe.
    Dav1dSequenceHeader finished_contract() const { return invariant_->finished_contract(spec_.name); }

    // Shares the rung's rate among its sessions by chunk complexity (the
    // analysis outlives the rung's sessions); none: even shares.
    void share_by(const ChunkComplexity* complexity);
    const ChunkComplexity* complexity() const { return complexity_; }

    // The joiner the lanes' scalers share, and the scalers, one per lane.
    ChunkJoiner& joiner() { return joiner_; }
    RungScaler& add_scaler(std::unique_ptr<RungScaler> scaler);
    RungScaler& scaler(std::size_t lane) { return *scalers_.at(lane); }
    std::size_t scalers() const { return scalers_.size(); }

    struct Checked {
        std::optional<AcceptedChunk> accepted;  // empty: refused
        std::vector<std::string> differences;   // refused: what differs from the rung's contract
    };
    // The rung's contract (the first chunk checked sets it). A refused
    // chunk is dropped here: the caller still has its frames or its file.
    Checked check(EncodedChunk chunk);
    // An accepted chunk journaled (encoded ones, with a journal), reported
    // done (encode_seconds: how long its encode took; 0 for journaled ones)
    // and handed to the rung's writer.
    void deliver(AcceptedChunk accepted, ChunkOrigin origin, double encode_seconds = 0);

    // --resume: true when the journal had this chunk (the same frames, and
    // it splices with the rung) and it was delivered: the raw frames need
    // no encoding. In a shard, which has no writer, it stays in the journal.
    // Called from the rung's scaler threads.
    bool take_from_journal(const RawChunk& raw);
    // Chunks taken from the journal so far.
    int resumed() const { return resumed_.load(); }

private:
    int index_;
    RungSpec spec_;
    EncoderSettings settings_;
    std::unique_ptr<RungCodecInvariant> invariant_;
    std::unique_ptr<RungRateFeedback> rate_;
    std::unique_ptr<RungFinalizer> writer_;
    ChunkJournal* journal_;
    ProgressSink& progress_;
    const ChunkComplexity* complexity_ = nullptr;
    ChunkJoiner joiner_;
    std::vector<std::unique_ptr<RungScaler>> scalers_;  // one per lane
    std::atomic<int> resumed_{0};
};

// The rungs of a run, in ladder order (Rung::index() is the place).
using Rungs = std::vector<std::unique_ptr<Rung>>;

}  // namespace ladder::engine
