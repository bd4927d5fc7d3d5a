#pragma once
// The encoder sessions of a run: what each rung asks of an encoder, where
// the encoders run (devices planned, CPU encoders in processes of their
// own or in ladder's), the workers that hold the slots, and what they
// report. run_job's step 1 plans them, its data path makes the workers.
#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/job_report.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/encode/encoder_worker.hpp"
#include "engine/encode/idle_encoders.hpp"
#include "engine/encode/process/process_encoder.hpp"
#include "engine/run/job.hpp"
#include "engine/run/preflight.hpp"
#include "engine/rung/rung.hpp"
#include "engine/schedule/chunk_dispatcher.hpp"
#include "engine/schedule/device_plan.hpp"
#include "gpu/cpu_info.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::engine {

// What a rung asks of its encoder at this preset, from the source's picture.
EncoderSettings settings_for(const RungSpec& rung, const SourceInfo& src, int preset);
// The pool's sessions in a line ("8 libsvtav1 x 3 threads").
std::string describe_slots(const gpu::GpuPool& pool);
// --cpu-encoders, or --encoder with --cpu-slots.
std::vector<std::pair<std::string, int>> cpu_encoder_mix(const JobOptions& o);

// The encoder sessions of the run, and where CPU encoders run.
struct Encoders {
    // Reaped when this goes, after every thread that used them was joined.
    std::unique_ptr<EncoderProcesses> processes;
    EncoderFactory factory;
    DevicePlan devices;
};
// The devices planned and every rung checked against its encoders' limits.
Encoders plan_encoders(const JobOptions& options, const JobSeams& seams, const CheckedSource& source);

// The encoder workers and the state they share: per-slot counters, each
// touched only by the holder of that slot's lease.
struct EncoderWorkers {
    std::vector<SlotReport> slot_reports;
    std::vector<int> failure_runs;
    IdleEncoders idle_encoders;
    std::atomic<int> chunks_encoding{0};
    std::atomic<int> session_ids{0};
    std::stop_source no_more_work;  // ends lease claims once no slot is needed
    std::vector<std::unique_ptr<EncoderWorker>> workers;
};
// The pool's CPU encoders whose chunks are decoded before they are taken
// (engine/encode/chunk_verification.hpp), by their libraries' versions.
std::set<std::string> verified_encoders(const gpu::GpuPool& pool, bool all);
// One worker per slot (fixed dispatch: per rung).
void make_workers(EncoderWorkers& w, const JobOptions& options, DispatchMode mode, gpu::GpuPool& pool,
                  ChunkDispatcher& dispatcher, Rungs& rungs, const EncoderFactory& factory, const gpu::CpuInfo& cpu,
                  std::chrono::steady_clock::time_point started, ProgressSink& progress);
// The slots, retries, sessions and contract mismatches into the report.
void report_slots(JobReport& report, EncoderWorkers& w, const EncoderProcesses* processes);

}  // namespace ladder::engine
