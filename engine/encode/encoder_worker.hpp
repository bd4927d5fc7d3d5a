#pragma once
// Room engine/encode/: the encoder workers: a slot's lease, its sessions of chunks
// from the dispatcher, checked and delivered to the rung's writer; encoders kept open.
// May include: base, media, check, plan, source, encode/backend,
//   output, schedule, rung.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// An encoder worker. With helper dispatch (pinned_rung < 0) it claims a
// GpuLease (first as a primary claimer, later as a helper), takes chunks the
// ChunkDispatcher picks for that slot, and when the slot has no chunk it may
// take right now it gives the lease back and waits for work; the next free
// lease goes where the dispatcher sends it. With fixed dispatch it stays on
// its rung. Each chunk is checked against its rung's codec contract and
// passed to the rung's writer through the rung (Rung::check, Rung::deliver). A failed chunk goes back for another slot;
// a slot that fails `quarantine_after` times in a row is taken out of the
// pool for the rest of the run.
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <stop_token>
#include <vector>

#include "engine/schedule/chunk_dispatcher.hpp"
#include "engine/encode/idle_encoders.hpp"
#include "engine/base/job_report.hpp"
#include "engine/check/chunk_quality.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/rung/rung.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::engine {

struct WorkerSetup {
    gpu::GpuPool* pool = nullptr;
    ChunkDispatcher* dispatcher = nullptr;
    Rungs* rungs = nullptr;
    ProgressSink* progress = nullptr;
    EncoderFactory factory;
    std::chrono::steady_clock::time_point job_start;
    int quarantine_after = 3;
    // Per slot (indexed by EncoderSlot::id), touched only by the holder of
    // that slot's lease.
    std::vector<SlotReport>* slot_reports = nullptr;
    std::vector<int>* failure_runs = nullptr;
    IdleEncoders* idle_encoders = nullptr;  // null: no encoder is kept between sessions
    // Helper dispatch: requested once no slot will ever be needed again, so
    // workers waiting to claim a lease stop waiting.
    std::stop_source* no_more_work = nullptr;
    // Tail threading: once the source is fully decoded and fewer chunks are
    // left than cores, a CPU chunk starts with cores / (chunks left) threads
    // instead of its slot's share, so the last big chunks do not run on one
    // thread while the other cores idle. 0: off (also where the user set
    // the threads).
    int cores = 0;
    std::atomic<int>* chunks_encoding = nullptr;  // sessions being encoded
    std::atomic<int>* session_ids = nullptr;      // numbers the sessions of the run
    QualityMetric quality = QualityMetric::none;  // --quality: measured per accepted chunk
    // CPU encoders whose chunks are decoded before they are accepted
    // (engine/encode/chunk_verification.hpp).
    std::set<std::string> verified_encoders;
};

class EncoderWorker {
public:
    // pinned_rung: the rung of a fixed-dispatch worker, else -1.
    EncoderWorker(WorkerSetup setup, int pinned_rung);

    void run(std::stop_token stop);

    const std::vector<RetryRecord>& retries() const { return retries_; }
    const std::map<std::pair<std::string, std::string>, MismatchRecord>& mismatches() const { return mismatches_; }
    const std::vector<SessionRecord>& sessions() const { return sessions_; }

private:
    struct SessionChunk {
        RawChunk raw;  // kept until the chunk came back: a failure sends it to another slot
        double sent_at = 0;
    };
    struct Session {
        int worker = 0;
        Rung* rung = nullptr;
        const gpu::EncoderSlot* slot = nullptr;
        gpu::EncoderSlot encoder_slot;  // the slot as this session runs it (session_slot)
        EncoderSettings settings;       // what the encoder is opened with
        RungRateFeedback::Request rate;
        std::unique_ptr<EncoderBackend> backend;
        // The encoder's failure, and its cause for the report.
        std::optional<std::string> failure;
        std::string cause = "error";
        bool open_refused = false;
        std::deque<SessionChunk> pending;  // sent, not back yet
        double last_done = 0;              // when the last chunk came back
        // What the chunks back made: the first, and the ones after it.
        RungRateFeedback::Made first;
        RungRateFeedback::Made rest;
        SessionRecord record;
    };

    double since_start() const;
    // Encodes a session of consecutive chunks of a rung, starting with
    // `first` and going on while the dispatcher has the next one for it;
    // false when the slot has to be quarantined.
    bool encode_session(const gpu::EncoderSlot& slot, int dispatcher_id, RawChunk first, std::stop_token stop);
    void open_session(Session& session, const gpu::EncoderSlot& slot, int id, const RawChunk& first);
    bool encode_chunks(Session& session, RawChunk first, std::stop_token stop);
    void fail_session(Session& session, SlotReport& stats);
    void end_rate(Session& session);
    template <typename Step>
    bool by_encoder(Session& session, Step&& step);
    void expect_decodable(const Session& session, std::vector<EncodedChunk>& back) const;
    bool accept(Session& session, std::vector<EncodedChunk> done);
    void finish_record(Session& session);
    // The slot as this session runs it (more threads at the tail).
    gpu::EncoderSlot session_slot(const gpu::EncoderSlot& slot) const;
    RungRateFeedback::Request begin_rate(Rung& r, const gpu::EncoderSlot& slot, int chunks,
                                         double seconds, double weight, double left_weight) const;
    void run_helpers(std::stop_token stop);
    void run_fixed(std::stop_token stop);
    void quarantine(const gpu::EncoderSlot& slot);
    void open_ahead(const gpu::EncoderSlot& slot, int dispatcher_id);
    IdleEncoders::Opener ahead_opener(const gpu::EncoderSlot& slot, int rung) const;
    int slots_on_gpu(const gpu::EncoderSlot& slot) const;
    // Closes the slot's idle encoders of rungs with nothing left to start
    // (all of them with everything true).
    void close_idle_encoders(const gpu::EncoderSlot& slot, bool everything);

    WorkerSetup s_;
    int pinned_rung_;
    std::vector<RetryRecord> retries_;
    std::map<std::pair<std::string, std::string>, MismatchRecord> mismatches_;  // (rung, encoder)
    std::vector<SessionRecord> sessions_;
};

}  // namespace ladder::engine
