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
//
// RungScaler, one per rung and decode lane, on its own thread: scales the
// lane's normalized frames to the rung's size and cuts them into chunks of N frames
// by frame number (chunk k = frames [kN, (k+1)N), the same in every rung) on
// the rung's queue (a ChunkInlet). A chunk a lane boundary splits goes through
// the rung's ChunkJoiner, which the lanes' scalers share.
//
// RungCodecInvariant, the contract of one rung: the AV1 sequence header of its first accepted
// chunk. Every later chunk must match it (strict: every field but
// operating_parameters_info; config: the av1C fields) before it is stitched,
// because a decoder initialised from av1C may not re-initialise mid-stream.
//
// ChunkJoiner: the chunks of one rung (or of the complexity analysis), put together from
// the scalers of the decode lanes. Lanes start and end at key frames, not at
// chunk boundaries, so the chunk a lane boundary falls in arrives in two
// pieces, one from each lane's scaler; the joiner hands it on whole, and the
// source's last chunk marked as the rung's end (RawChunk::ends_rung). It
// also says when the last lane's scaler is done (it closes the queue). When the
// lanes decode on different GPUs and the frames stay there, the whole chunk
// goes to the GPU that holds most of its frames: the others are copied
// there (through host memory), so one NVENC session can take it.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/base/chunk.hpp"
#include "engine/base/memory_budget.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/output/chunk_journal.hpp"
#include "engine/output/rung_finalizer.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/rung/chunk_complexity.hpp"
#include "engine/rung/rung_rate_feedback.hpp"
#include "engine/schedule/segment_chunk_queue.hpp"
#include "engine/source/decode_lanes.hpp"
#include "mux/av1_sequence_header.hpp"

namespace ladder::engine {

class ChunkJoiner {
public:
    ChunkJoiner(std::string rung_name, int chunk_frames, int lanes);

    // A piece of chunk piece.index (frames [first_frame, first_frame +
    // size)); ends_source: its last frame is the source's last. Returns the
    // whole chunk once all its frames are here (the source's last carrying
    // ends_rung). Throws RunError when a frame comes twice.
    std::optional<RawChunk> add(RawChunk piece, bool ends_source);

    // A lane's scaler has handed on its last piece; reached_source_end: the
    // piece was the source's last. True once the last lane is done. Throws
    // RunError when, after the last lane, a chunk still misses frames or no
    // lane reached the source's end (its last chunk never came).
    bool lane_done(bool reached_source_end);
    // One more lane will hand on pieces (before it can end any other).
    void add_lane();

private:
    struct Pieces {
        std::vector<RawChunk> parts;  // by first_frame
        bool ends_source = false;
    };
    std::optional<RawChunk> take_if_whole(int index);

    std::string rung_name_;
    int chunk_frames_;
    std::mutex mu_;  // the rung's joiner's own: guards what follows; a leaf
    int lanes_left_;
    bool source_end_seen_ = false;
    std::map<int, Pieces> waiting_;
};

class RungCodecInvariant {
public:
    explicit RungCodecInvariant(mux::SpliceCheck level) : level_(level) {}

    struct Verdict {
        bool accepted = false;
        std::vector<std::string> differences;  // field names, when refused
    };

    // Parses the sequence header at the start of the chunk; the first chunk
    // checked sets the contract.
    Verdict check(const EncodedChunk& chunk);
    Verdict check(const Dav1dSequenceHeader& header);

    std::optional<Dav1dSequenceHeader> contract() const;
    // The contract of a finished rung, which the manifests describe; throws
    // RunError naming the rung when no chunk set one.
    Dav1dSequenceHeader finished_contract(const std::string& rung_name) const;

private:
    mux::SpliceCheck level_;
    mutable std::mutex mu_;  // the rung contract's own: guards contract_; a leaf
    std::optional<Dav1dSequenceHeader> contract_;
};

class RungScaler {
public:
    // The rung's last chunk carries the rung's end (RawChunk::ends_rung);
    // the last lane's scaler to end then closes the queue. budget (may be
    // null) is reserved for each chunk before it is queued; while the scaler
    // has to wait for it, it tells output (ChunkInlet::waiting_for_memory).
    RungScaler(int rung_index, const RungSpec& rung, AVPixelFormat pix_fmt, int chunk_frames, FrameChannel& input,
               ChunkInlet& output, ChunkJoiner& joiner, MemoryBudget* budget = nullptr,
               std::function<bool(RawChunk&)> resume = {});

    // Frames that arrive in GPU memory (NVDEC) are scaled there with
    // scale_cuda; by default they are then downloaded for CPU encoders.
    // keep_on_gpu leaves them in GPU memory (NVENC on the same GPU: no copy):
    // gpu is the lane's GPU (CUDA ordinal), whose memory then holds the
    // chunks (RawChunk::gpu), reserved from gpu_budget(gpu) instead of the
    // host's budget.
    void keep_on_gpu(bool keep, int gpu = 0, std::function<MemoryBudget*(int)> gpu_budget = {}) {
        keep_on_gpu_ = keep;
        gpu_ = gpu;
        gpu_budget_ = std::move(gpu_budget);
    }
    // Whether this lane's frames end with the source's last (the last lane;
    // the default), asked when the lane's frames have all come.
    void ends_source(std::function<bool()> ends) { ends_source_ = std::move(ends); }
    void ends_source(bool ends) {
        ends_source_ = [ends] { return ends; };
    }

    // Closes the queue after the last lane's last chunk. When it throws, the
    // caller stops the run before closing the queue.
    void run(std::stop_token stop);

private:
    av::FramePtr scale(av::FramePtr src);
    av::FramePtr scale_on_gpu(av::FramePtr src);
    void emit(std::stop_token stop, bool last);
    void queue(RawChunk chunk, std::stop_token stop);

    int rung_index_;
    RungSpec rung_;
    AVPixelFormat pix_fmt_;
    int chunk_frames_;
    FrameChannel& input_;
    ChunkInlet& output_;
    ChunkJoiner& joiner_;
    MemoryBudget* budget_;
    // Takes a chunk from the resume journal instead of queueing it for
    // encoding; true when it did.
    std::function<bool(RawChunk&)> resume_;
    av::SwsPtr sws_;
    std::unique_ptr<av::FilterChain> gpu_chain_;
    int gpu_chain_width_ = 0;  // the size gpu_chain_ takes (NVDEC frames change size with the stream)
    int gpu_chain_height_ = 0;
    bool keep_on_gpu_ = false;
    int gpu_ = 0;
    std::function<MemoryBudget*(int)> gpu_budget_;
    std::function<bool()> ends_source_ = [] { return true; };
    bool last_ends_source_ = false;  // asked once the lane's last frame came
    RawChunk pending_;
    std::int64_t end_frame_ = 0;  // after the last frame seen
};

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

// Budget rate control (JobOptions::rate_mode budget): each chunk's
// constant quality in this pass; chunks not named take `crf`. Chunks made
// at a CRF are journaled under that CRF (Rung::journal_key), so a later
// pass, or a resumed run, takes them instead of encoding them again.
struct ChunkCrfs {
    int crf = -1;
    std::map<int, int> by_chunk;
    // The rung waits for another's search: this pass drops its chunks.
    bool sits_out = false;
    int of(int chunk) const {
        const auto it = by_chunk.find(chunk);
        return it == by_chunk.end() ? crf : it->second;
    }
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
    std::optional<ChunkCrfs> chunk_crfs;  // budget rate control only
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
    // The settings chunk `index` is encoded with: the rung's, at that
    // chunk's CRF under budget rate control.
    EncoderSettings settings_for_chunk(int index) const;
    // Where chunk `index` is journaled: the rung's name, or under budget
    // rate control "<name>@crf<N>" (no rung name has an '@').
    std::string journal_key(int index) const;
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
    // Also true, delivering nothing, when the rung sits this pass out.
    // Called from the rung's scaler threads.
    bool take_from_journal(const RawChunk& raw);
    // Chunks taken from the journal that another run wrote (budget's own
    // earlier passes' are not counted).
    int resumed() const { return resumed_.load(); }
    // Each delivered chunk's video bytes and frames, by chunk number (what a
    // budget pass measured).
    struct Delivered {
        std::int64_t bytes = 0;
        std::int64_t frames = 0;
    };
    std::map<int, Delivered> delivered() const;

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
    std::optional<ChunkCrfs> chunk_crfs_;
    mutable std::mutex delivered_mutex_;
    std::map<int, Delivered> delivered_;  // guarded by delivered_mutex_
};

// The rungs of a run, in ladder order (Rung::index() is the place).
using Rungs = std::vector<std::unique_ptr<Rung>>;

}  // namespace ladder::engine
