#pragma once
// Room engine/run/: a whole run and the commands' engines: `ladder encode`,
// `plan` and `stitch`, their pre-flight, wiring, lanes' growth and published outputs.
// May include: base, media, check, plan, source, encode/backend,
//   encode/process, output, schedule, rung, encode.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// A whole run (`ladder encode`, or one shard of a plan), in the order of
// run_job: the pre-flight (source, ladder, encoders, memory), the output
// folder, the rungs and their writers, the data path (decode pump -> rung
// scalers -> dispatcher -> encoder workers -> rung writers, with journaled
// chunks going from scaler to writer on --resume), the running stages (one
// thread each, joined as a group), the outputs made whole or withdrawn, and
// the report.
#include <chrono>
#include <filesystem>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "engine/media/audio_selection.hpp"
#include "engine/media/subtitle_selection.hpp"
#include "engine/check/chunk_quality.hpp"
#include "engine/schedule/chunk_dispatcher.hpp"
#include "engine/schedule/device_plan.hpp"
#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/output/output_formats.hpp"
#include "engine/plan/job_plan.hpp"
#include "engine/base/job_report.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/base/stage_threads.hpp"
#include "mux/av1_sequence_header.hpp"

namespace ladder::engine {

// How a rung's rate is shared among its sessions: by the complexity of
// their chunks (engine/rung/chunk_complexity.hpp) or evenly.
enum class BitAllocation { complexity, even };

// How a rung's rate is reached (README "What a rung's bit rate means"):
// vbr = one-pass VBR sessions asked for shares of the rung's rate; budget =
// each rung at a constant quality (SVT-AV1's CRF) found by encoding the
// whole rung and correcting it until its average lands within ±5% of the
// target (engine/rung/rung_crf_search.hpp): decided by the content only;
// automatic = budget where it can run, else vbr (chosen_rate_mode in
// engine/run/budget_search.hpp), the command line's default.
enum class RateMode { vbr, budget, automatic };

// What the user asks for: what `ladder encode` (cli/encode_command.cpp) and a
// plan's shard (engine/run/plan_job.hpp) set, and what a library user may.
// What only tests substitute is apart, in JobSeams.
struct JobOptions {
    std::filesystem::path input;
    // --frame-rate: an image sequence's rate (input is then a pattern such
    // as img_%05d.png); a video file refuses it.
    std::optional<AVRational> frame_rate;
    // --audio-file: the outputs' audio comes from this file instead of the
    // input's own (engine/run/audio_file.hpp); empty: the input's.
    std::filesystem::path audio_file;
    std::filesystem::path outdir;
    std::optional<LadderSpec> ladder;  // nullopt: the default ladder
    // Where to encode (--policy) and decode (--decode). Default cpu keeps
    // library users and tests off the GPUs unless they ask.
    gpu::EncodePolicy policy = gpu::parse_encode_policy("cpu");
    int sessions_per_gpu = 0;  // 0: one per NVENC engine of each GPU (at least one)
    DecodeMode decode = DecodeMode::automatic;
    // Decode lanes: ranges of the source between key frames, decoded at
    // once (engine/source/decode_lanes.hpp); 0: chosen from the devices; 1: one pass.
    int decoders = 0;
    int max_decoders = 0;  // with decoders 0: the most lanes the run may grow to (0: from the devices)
    std::string encoder = "libsvtav1";
    int cpu_slots = 0;                 // 0: from cores and memory
    int cpu_threads = 0;               // encoder threads per CPU session; 0: the default layout's, or cores / sessions
    // Mixed CPU encoders, e.g. {{"libsvtav1", 2}, {"libaom-av1", 1}}; when
    // set, it replaces encoder x cpu_slots.
    std::vector<std::pair<std::string, int>> cpu_encoders;
    int max_tries = 3;         // attempts per chunk before the run fails
    // --verify-chunks all: every CPU encoder's chunks decoded before they
    // are taken, not only SVT-AV1 2.x's (engine/encode/chunk_verification.hpp).
    bool verify_every_chunk = false;
    int quarantine_after = 3;  // failures in a row before a slot is dropped
    // The most consecutive chunks of a rung one encoder session takes
    // (engine/schedule/chunk_dispatcher.hpp); 1: a fresh encoder per chunk. Hardware
    // encoders' sessions may take hw_session_chunks (their rate control runs
    // over the whole session, so a rung is not cut for rate feedback).
    int session_chunks = 15;
    int hw_session_chunks = 120;
    // session_chunks was asked for (--session-chunks): budget, which
    // encodes each chunk in a session of its own, says it does not apply.
    bool session_chunks_given = false;
    BitAllocation bit_allocation = BitAllocation::complexity;
    // bit_allocation was asked for (--bit-allocation): it shares a rung's
    // rate among vbr's sessions, so budget refuses it and auto picks vbr.
    bool bit_allocation_given = false;
    RateMode rate_mode = RateMode::vbr;
    // Where CPU encoders run: in encoder processes (a crash or hang costs a
    // chunk, not the run; the command line's default) or in this process.
    EncoderIsolation isolation = EncoderIsolation::in_process;
    // With process isolation: how long an encoder may take no frame and
    // return no packet (frames up to 1920x1080; larger ones proportionally
    // longer) before it is killed as hung.
    std::chrono::milliseconds encoder_stall_timeout{std::chrono::seconds(120)};
    double segment_seconds = 2.0;
    AudioChoice audio;  // --audio: which tracks become AAC renditions
    SubtitleChoice subtitles;  // --subtitles: which text tracks become WebVTT (and mov_text)
    bool overwrite = false;
    // Files the caller writes besides the outputs (--report): never an input.
    std::vector<std::filesystem::path> other_outputs;
    // Reuse the chunks journaled under OUTDIR/.ladder by an interrupted run
    // with the same source, ladder and settings (implies overwrite).
    bool resume = false;
    int preset = -1;
    mux::SpliceCheck splice_check = mux::SpliceCheck::strict;
    OutputFormats formats{OutputFormat::hls};  // --format (engine/output/output_formats.hpp)
    QualityMetric quality = QualityMetric::none;  // --quality: each chunk compared with its encoder's input
    // Raw chunks waiting per rung; 0: as many as the memory budget allows,
    // so the source is decoded ahead and the dispatcher can start the
    // biggest rung's last chunks early instead of at the very end.
    std::size_t queue_chunks = 0;
    bool tail_threads = true;  // see WorkerSetup::cores
    // Bytes of raw frames queued for encoding (complete chunks waiting or
    // being encoded); 0: a quarter of the available memory, at least two
    // chunks of the largest rung.
    std::uint64_t memory_budget = 0;
    // The same in GPU memory, for frames that stay on the GPU that decoded
    // them (NVDEC for NVENC sessions on that GPU); 0: a quarter of its memory.
    std::uint64_t gpu_memory_budget = 0;
    // A shard of a plan (`ladder encode --plan P --shard I/N`): the plan's
    // source, ladder and encoder settings replace input, ladder, encoder,
    // preset, splice_check and segment_seconds; outdir is the plan's folder.
    // Only chunks [first_chunk, end_chunk) of every rung are encoded, from
    // the frames decoded for them alone, into the shared journal there;
    // chunks already in it are kept. No outputs are written.
    struct Shard {
        JobPlan plan;
        ShardSpec spec;
        int first_chunk = 0;
        int end_chunk = 0;
    };
    std::optional<Shard> shard;
};

// What tests substitute for the real thing; the defaults are what a run
// uses (the command line never sets these).
struct JobSeams {
    std::function<gpu::DeviceInventory()> inventory;  // empty: probe this machine
    // Empty: the real libavcodec encoders, in encoder processes when
    // JobOptions::isolation says so; set: these, in this process.
    EncoderFactory encoder_factory;
    ThreadStarter start_thread;  // empty: std::jthread (tests substitute one that fails)
    // fixed pins one worker per rung: the baseline the scheduler's helper
    // dispatch is measured against (tests/e2e/scheduler_test.cpp).
    DispatchMode dispatch = DispatchMode::helpers;
};

// Frames per chunk for --segment-seconds at this frame rate. Throws InputError.
int chunk_frames_for(double segment_seconds, AVRational frame_rate);

// Throws InputError (unusable input or options), RunError (the run failed)
// or Cancelled (stop requested).
JobReport run_job(const JobOptions& options, ProgressSink& progress, std::stop_token stop = {},
                  const JobSeams& seams = {});

}  // namespace ladder::engine
