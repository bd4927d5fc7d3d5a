#pragma once
// An encoder worker: one per encoder session (slot). It holds the slot's
// GpuLease, takes chunks from the ChunkDispatcher (moving between rungs as
// the dispatcher decides), checks each against its rung's codec contract and
// passes it to the rung's finalizer. A failed chunk goes back for another
// slot; a slot that fails `quarantine_after` times in a row stops for the
// rest of the run.
#include <chrono>
#include <map>
#include <stop_token>
#include <vector>

#include "engine/chunk_dispatcher.hpp"
#include "engine/chunk_journal.hpp"
#include "engine/job_report.hpp"
#include "engine/progress_sink.hpp"
#include "engine/rung_runtime.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::engine {

struct WorkerSetup {
    gpu::GpuPool* pool = nullptr;
    ChunkDispatcher* dispatcher = nullptr;
    std::vector<RungRuntime>* rungs = nullptr;
    ProgressSink* progress = nullptr;
    EncoderFactory factory;
    std::chrono::steady_clock::time_point job_start;
    int quarantine_after = 3;
    ChunkJournal* journal = nullptr;  // accepted chunks are recorded for --resume
};

class EncoderWorker {
public:
    // pinned_rung: the rung of a fixed-dispatch worker, else -1.
    EncoderWorker(WorkerSetup setup, int pinned_rung);

    void run(std::stop_token stop);

    const SlotReport& slot_report() const { return slot_; }
    const std::vector<RetryRecord>& retries() const { return retries_; }
    const std::map<std::pair<std::string, std::string>, MismatchRecord>& mismatches() const { return mismatches_; }

private:
    double since_start() const;
    void encode_one(const gpu::EncoderSlot& slot, RawChunk raw, std::stop_token stop, int& failures_in_a_row);

    WorkerSetup s_;
    int pinned_rung_;
    int id_ = -1;
    SlotReport slot_;
    std::vector<RetryRecord> retries_;
    std::map<std::pair<std::string, std::string>, MismatchRecord> mismatches_;  // (rung, encoder)
};

}  // namespace ladder::engine
