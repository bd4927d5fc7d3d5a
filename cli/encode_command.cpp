#include "cli/encode_command.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "cli/command_run.hpp"
#include "cli/input_options.hpp"
#include "engine/output/output_formats.hpp"
#include "cli/failure_hint.hpp"
#include "cli/progress_model.hpp"
#include "cli/progress_renderer.hpp"
#include "gpu/encode_policy.hpp"
#include "cli/run_report.hpp"
#include "cli/signal_stop.hpp"
#include "cli/stderr_capture.hpp"
#include "engine/base/errors.hpp"
#include "engine/output/output_lock.hpp"
#include "engine/run/job.hpp"
#include "engine/run/plan_job.hpp"
#include "engine/encode/process/realtime_lockout.hpp"
#include "engine/base/memory_budget.hpp"
#include "gpu/cpu_info.hpp"

namespace ladder::cli {

CLI::App* add_encode_command(CLI::App& app, EncodeArgs& a) {
    CLI::App* cmd = app.add_subcommand(
        "encode", "Encode INPUT into an AV1 ladder in OUTDIR (or, with --plan P --shard I/N, shard I of N of a plan "
                  "made by ladder plan)");
    auto* input = cmd->add_option("input", a.input,
                                  "Source video file (any format FFmpeg reads), or numbered images as a printf pattern "
                                  "(frames/img_%05d.png: PNG, JPEG, TIFF, DPX, EXR) with --frame-rate; required "
                                  "unless --plan");
    auto* output = cmd->add_option("-o,--output", a.outdir, "Output directory (created if missing); required unless --plan");
    auto* plan = cmd->add_option("--plan", a.plan,
                                 "Encode a shard of this plan (WORKDIR/plan.json from ladder plan) instead: its source, "
                                 "ladder and encoder settings; the chunks go to WORKDIR/.ladder, shared with the other "
                                 "shards (chunks already there are kept, so a shard can be run again); no outputs "
                                 "(ladder stitch WORKDIR makes them); the report goes to "
                                 "WORKDIR/reports/shard-I-of-N.json")
                     ->type_name("FILE");
    auto* shard = cmd->add_option("--shard", a.shard,
                                  "With --plan: shard I (0-based) of N, a contiguous range of the plan's chunks for "
                                  "every rung, decoding only the frames they need (Kubernetes Indexed Job: "
                                  "$(JOB_COMPLETION_INDEX)/N; Slurm array: $SLURM_ARRAY_TASK_ID/N)")
                      ->type_name("I/N");
    auto* frame_rate = add_frame_rate_option(*cmd, a.frame_rate);
    auto* audio_file = add_audio_file_option(*cmd, a.audio_file);
    plan->excludes(input)->excludes(output);
    shard->needs(plan);
    plan->needs(shard);
    auto* format = cmd->add_option("--format", a.format,
                    "Output packaging, a comma list: hls = CMAF/HLS (OUTDIR/master.m3u8, OUTDIR/<rung>/ with "
                    "init.mp4, seg_NNNNN.m4s, index.m3u8, iframes.m3u8, OUTDIR/audio/aac/); dash = "
                    "OUTDIR/manifest.mpd over the same CMAF segments (which it writes too); mp4 = one MP4 per rung "
                    "(OUTDIR/<rung>.mp4, faststart, AAC audio); both = hls,mp4")
        ->capture_default_str();
    auto* ladder = cmd->add_option("--ladder", a.ladder_file,
                                   "Ladder preset JSON ({\"rungs\": [{\"name\", \"height\", \"bitrate_kbps\", "
                                   "optional \"width\", \"maxrate_kbps\", \"bufsize_kbps\"}]}; without \"width\", "
                                   "\"height\" is the rung's short side); see samples/ladders/");
    auto* rung = cmd->add_option("--rung", a.rungs,
                                 "A rung NAME=WxH@KBPS, repeatable (e.g. --rung 720p=1280x720@2500); W may be "
                                 "omitted (720p=x720@2500): H is then the short side (720x1280 on a portrait "
                                 "source) and the other side follows the source's display aspect ratio. Default "
                                 "ladder: 1080p 4500k, 720p 2500k, 540p 1200k, 360p 600k, trimmed to the source "
                                 "(never upscales)");
    ladder->excludes(rung);
    auto* encoder = cmd->add_option("--encoder", a.encoder, "CPU AV1 encoder: svt (SVT-AV1) or aom (libaom)")
                        ->check(CLI::IsMember({"svt", "aom"}))
                        ->capture_default_str();
    cmd->add_option("--policy", a.policy,
                    "Where to encode: auto = every GPU that can encode AV1, else the CPU (says so); all-gpus = every "
                    "AV1-capable GPU, error if none; gpu:I[,J] = these GPUs (indices from 'ladder devices'); nvidia / "
                    "intel = that vendor's GPUs; cpu = software encoders only. An encoder is opened on each selected "
                    "GPU before the run; GPUs that cannot encode are dropped with a warning. CPU sessions join GPU "
                    "ones only when --cpu-slots or --cpu-encoders is given")
        ->check([](const std::string& v) {
            try {
                gpu::parse_encode_policy(v);
                return std::string();
            } catch (const std::invalid_argument& e) {
                // CLI11 names the option itself.
                std::string why = e.what();
                const std::string prefix = "--policy ";
                return why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why;
            }
        })
        ->capture_default_str();
    cmd->add_option("--sessions-per-gpu", a.sessions_per_gpu,
                    "Concurrent encoder sessions per GPU (default: one per NVENC engine of the GPU, as 'ladder "
                    "devices' lists them, at least one; GeForce drivers cap NVENC sessions per system)")
        ->check(CLI::Range(1, 16));
    cmd->add_option("--decode", a.decode,
                    "Where to decode the source: cpu; nvdec = NVDEC on the policy's first NVIDIA GPU (frames are "
                    "scaled there with scale_cuda, then downloaded for CPU encoders or handed to NVENC on the same "
                    "GPU without a copy); auto = nvdec when that GPU can decode the source, else cpu")
        ->check(CLI::IsMember({"auto", "cpu", "nvdec"}))
        ->capture_default_str();
    cmd->add_option("--decoders", a.decoders,
                    "Decode lanes: ranges of the source between key frames (closed GOPs only), decoded at once, each "
                    "frame still once (0 = one lane, and one more whenever the encoders wait for frames, up to "
                    "--max-decoders; 1 = one pass)")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    cmd->add_option("--max-decoders", a.max_decoders,
                    "With --decoders 0: the most decode lanes a run starts (0 = three NVDEC sessions per decoding "
                    "GPU, one lane per 4 cores on the CPU)")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    cmd->add_option("--cpu-slots", a.cpu_slots,
                    "Concurrent CPU encoder sessions (0 = one single-thread session per core below 16 cores; from 16 "
                    "on, one per 2 cores with 3 threads each; limited by memory); a given count gets cores/slots "
                    "threads each")
        ->check(CLI::Range(0, 256))
        ->capture_default_str();
    cmd->add_option("--cpu-threads", a.cpu_threads,
                    "Encoder threads per CPU session (0 = the default layout's, or cores/slots with --cpu-slots); "
                    "more threads than cores overlap the sessions' idle moments at some CPU cost per frame")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    auto* cpu_encoders = cmd->add_option("--cpu-encoders", a.cpu_encoders,
                    "Mixed CPU encoder sessions, e.g. svt:2,aom:1 (replaces --encoder and --cpu-slots). With "
                    "--splice-check strict a rung only takes chunks from the encoder kind that made its first chunk; "
                    "the others help other rungs");
    cmd->add_option("--max-tries", a.max_tries,
                    "Attempts per chunk (on any slot) before the run fails; a slot that fails 3 times in a row is "
                    "quarantined for the rest of the run")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    cmd->add_option("--session-chunks", a.session_chunks,
                    "The most consecutive chunks of a rung one encoder session encodes (a key frame with a sequence "
                    "header at every chunk start); fewer as the run nears its end, so it does not end on one long "
                    "session. 1 = a fresh encoder per chunk. GPU encoders' sessions may take up to 120 unless this "
                    "is given")
        ->check(CLI::Range(1, 1000))
        ->each([&a](const std::string&) { a.session_chunks_given = true; })
        ->capture_default_str();
    cmd->add_option("--bit-allocation", a.bit_allocation,
                    "How a rung's rate is shared among its encoder sessions: complexity = by how hard their chunks "
                    "are, from a fast constant-quality encode of a 180-line copy of each chunk made while the source "
                    "is decoded (more bits where the picture needs them, fewer where it cannot use them), for rungs "
                    "up to 540 lines; even = the same rate for every session")
        ->check(CLI::IsMember({"complexity", "even"}))
        ->capture_default_str();
    cmd->add_option("--isolation", a.isolation,
                    "Where CPU encoders run: process = one encoder process per CPU slot, so an encoder that "
                    "crashes or hangs costs its chunk (retried on another slot) and never the run; none = inside "
                    "ladder's process. GPU encoders always run inside ladder's process")
        ->check(CLI::IsMember({"process", "none"}))
        ->capture_default_str();
    cmd->add_option("--encoder-timeout", a.encoder_timeout,
                    "Seconds an encoder process may take no frame and return no packet before it is killed as hung "
                    "and its chunk retried (for frames up to 1920x1080; larger frames get proportionally longer)")
        ->check(CLI::Range(0.1, 86400.0))
        ->capture_default_str();
    cmd->add_option("--memory-budget", a.memory_budget,
                    "Bytes of raw frames that may wait for encoding (e.g. 2G, 512M; default: a quarter of the "
                    "available memory, at least two chunks of the largest rung). The decoder waits when it is full; "
                    "below one chunk of the largest rung is an error");
    cmd->add_option("--gpu-memory-budget", a.gpu_memory_budget,
                    "The same in GPU memory, for frames that stay on the GPU that decoded them (--decode nvdec "
                    "feeding NVENC on that GPU; default: a quarter of the GPU's memory, from NVML). Below one chunk "
                    "of the largest rung or above the GPU's memory is an error");
    auto* segment = cmd->add_option("--segment-seconds", a.segment_seconds,
                                    "Chunk (and segment) length in seconds; every chunk starts with a key frame")
                        ->capture_default_str();
    auto* audio = cmd->add_option("--audio", a.audio,
                                  "aac = every audio track of the source, encoded once to AAC for every rung (stereo "
                                  "per track, plus 5.1 for a track with more channels); aac:LANG[,LANG...] = the "
                                  "tracks tagged with these languages (e.g. aac:eng,fra); none = no audio")
                      ->capture_default_str();
    auto* subtitles = cmd->add_option("--subtitles", a.subtitles,
                                      "all = every text subtitle track (SubRip, mov_text, ASS/SSA, WebVTT) as a "
                                      "segmented WebVTT rendition (and a mov_text track in MP4 outputs); LANG[,LANG...] "
                                      "= the tracks tagged with these languages; none. Picture-based subtitles (PGS, "
                                      "DVB, VobSub) are skipped with a warning")
                          ->capture_default_str();
    auto* overwrite = cmd->add_flag("--overwrite", a.overwrite, "Replace outputs that already exist in OUTDIR");
    auto* resume = cmd->add_flag("--resume", a.resume,
                  "Continue an interrupted run (crash, kill -9, Ctrl-C, SIGTERM) into the same OUTDIR: chunks journaled in "
                  "OUTDIR/.ladder by the earlier run with the same source, ladder and settings are reused, only the "
                  "missing ones are encoded");
    auto* preset = cmd->add_option("--preset", a.preset,
                                   "Encoder speed preset: SVT-AV1 0-13 (default 8), libaom cpu-used 0-8 (default 6); "
                                   "higher is faster")
                       ->check(CLI::Range(-1, 13));
    auto* quality = cmd->add_option("--quality", a.quality,
                                    "Measure each rung: every chunk decoded again and compared with the frames its "
                                    "encoder was given (the source scaled to the rung) by FFmpeg's psnr, ssim or "
                                    "xpsnr filter (xpsnr where FFmpeg has it: 7.0 and newer); per chunk and per rung "
                                    "(mean, lowest chunk) in report.json and the summary; none = off")
                        ->capture_default_str();
    auto* splice = cmd->add_option("--splice-check", a.splice_check,
                    "How chunks of one rung must agree before they are stitched: strict = whole AV1 sequence "
                    "header; config = the fields in av1C only")
        ->check(CLI::IsMember({"strict", "config"}))
        ->capture_default_str();
    // The plan decides these for every shard alike.
    for (CLI::Option* o :
         {format, ladder, rung, encoder, cpu_encoders, segment, audio, subtitles, overwrite, resume, preset, splice,
          quality, frame_rate, audio_file})
        plan->excludes(o);
    cmd->add_flag("-q,--quiet", a.quiet, "Print only warnings, errors and the result");
    cmd->add_option("--progress", a.progress,
                    "Progress on stderr: bars = live terminal bars (per rung: percent, fps, slots on it; per slot: "
                    "busy share; decode); plain = event lines and a summary line every 2 s, no ANSI (CI logs); "
                    "json = one JSON object per event per line (docs/progress-json.md); none = errors only; "
                    "auto = bars when stderr is a terminal and TERM is not dumb, else plain")
        ->check(CLI::IsMember({"auto", "bars", "plain", "json", "none"}))
        ->capture_default_str();
    cmd->add_option("--report", a.report,
                    "Write the run's report (JSON: per rung, per slot, per chunk with slot, encoder, start/end "
                    "time, frames, bytes; retries, mismatches, decode and wall time) to FILE; also written, with "
                    "\"ok\": false, when the run fails. Default OUTDIR/report.json; none = no report")
        ->type_name("FILE|none");
    return cmd;
}

namespace {

engine::JobOptions to_job_options(const EncodeArgs& a) {
    engine::JobOptions o;
    o.input = a.input;
    o.outdir = a.outdir;
    set_input_options(o, a.frame_rate, a.audio_file, a.audio);
    o.ladder = ladder_from_arguments(a.ladder_file, a.rungs);
    o.policy = gpu::parse_encode_policy(a.policy);
    o.sessions_per_gpu = a.sessions_per_gpu;
    o.decoders = a.decoders;
    o.max_decoders = a.max_decoders;
    o.decode = a.decode == "nvdec" ? engine::DecodeMode::nvdec
               : a.decode == "cpu" ? engine::DecodeMode::cpu
                                   : engine::DecodeMode::automatic;
    o.encoder = gpu::cpu_encoder_name(a.encoder);
    o.cpu_slots = a.cpu_slots;
    o.cpu_threads = a.cpu_threads;
    if (!a.cpu_encoders.empty()) o.cpu_encoders = gpu::parse_encoder_mix(a.cpu_encoders);
    o.max_tries = a.max_tries;
    o.session_chunks = a.session_chunks;
    if (a.session_chunks_given) o.hw_session_chunks = a.session_chunks;
    o.bit_allocation = a.bit_allocation == "even" ? engine::BitAllocation::even : engine::BitAllocation::complexity;
    o.isolation = a.isolation == "none" ? engine::EncoderIsolation::in_process : engine::EncoderIsolation::process;
    o.encoder_stall_timeout =
        std::chrono::milliseconds(static_cast<long long>(std::llround(a.encoder_timeout * 1000.0)));
    const auto byte_size = [](const char* option, const std::string& text) -> std::uint64_t {
        if (text.empty()) return 0;
        try {
            return engine::parse_byte_size(text);
        } catch (const std::invalid_argument& e) {
            throw engine::InputError(fmt::format("{} {}", option, e.what()));
        }
    };
    o.memory_budget = byte_size("--memory-budget", a.memory_budget);
    o.gpu_memory_budget = byte_size("--gpu-memory-budget", a.gpu_memory_budget);
    o.segment_seconds = a.segment_seconds;
    o.audio = engine::parse_audio_choice(a.audio);
    o.subtitles = engine::parse_subtitle_choice(a.subtitles);
    o.overwrite = a.overwrite;
    o.resume = a.resume;
    o.preset = a.preset;
    o.splice_check = a.splice_check == "config" ? mux::SpliceCheck::config : mux::SpliceCheck::strict;
    o.formats = engine::parse_output_formats(a.format);
    o.quality = engine::parse_quality_metric(a.quality);
    return o;
}

// What a stopped run tells the user: nothing looks complete, and the chunks
// it finished are kept for the run that continues it.
std::string interrupted_message(const SignalStop& signals, const EncodeArgs& effective) {
    const std::string journal = (std::filesystem::path(effective.outdir) / ".ladder").string();
    // Stopped while the input was probed, before anything was written.
    std::error_code ec;
    if (!std::filesystem::exists(journal, ec)) return interrupted_line(signals, "nothing was written");
    if (!effective.plan.empty())
        return interrupted_line(signals, fmt::format("the shard's finished chunks are kept in {}; running the shard "
                                                     "again (a requeue) encodes only the rest",
                                                     journal));
    return interrupted_line(signals, fmt::format("no output was left looking complete; the finished chunks are kept "
                                                 "in {}: the same command with --resume continues",
                                                 journal));
}

}  // namespace

int run_encode(const EncodeArgs& args) {
    // First: threads started after this (the renderer's, the engine's)
    // inherit the blocked SIGINT/SIGTERM.
    SignalStop signals;
    const auto started = std::chrono::steady_clock::now();
    auto since_start = [&started] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    ProgressMode mode;
    try {
        mode = resolve_progress_mode(args.progress, ::isatty(STDERR_FILENO) == 1, std::getenv("TERM"));
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "ladder: error: {}\n", e.what());
        return 2;
    }
    // json and bars own stderr while the run lasts: what libraries print
    // there goes through the renderer (a "log" event, a line above the bars).
    std::unique_ptr<StderrCapture> capture;
    if (progress_captures_stderr(mode, args.quiet)) capture = std::make_unique<StderrCapture>();
    std::unique_ptr<ProgressRenderer> renderer =
        make_progress_renderer(mode, capture ? capture->stream() : stderr, args.quiet);
    if (capture) capture->start([r = renderer.get()](const std::string& line) { r->log_line(line); });
    // Whatever happens, the capture's reader stops before the renderer goes.
    struct StopCapture {
        StderrCapture* capture;
        ~StopCapture() {
            if (capture) capture->stop();
        }
    } stop_capture{capture.get()};
    ReportCollector collector;
    ProgressTee progress(*renderer, collector);
    auto finish = [&](RunOutcome outcome) {
        if (capture) capture->stop();
        renderer->finish(outcome);
    };
    auto end = [&](int code, const std::string& error, std::string message,
                   std::optional<std::string> report_written = std::nullopt) {
        finish(RunOutcome{code, error, std::move(message), since_start(), std::move(report_written)});
        return code;
    };

    std::optional<std::filesystem::path> report_path;
    // With --plan, where the chunks and the report go: the plan's folder.
    EncodeArgs effective = args;
    // One run per output folder, from before anything is written there
    // until the report is (engine/output/output_lock.hpp).
    std::optional<engine::OutputLock> lock;
    try {
        std::optional<engine::JobPlan> plan;
        std::optional<engine::ShardSpec> shard;
        if (!args.plan.empty()) {
            plan = engine::read_plan(args.plan);
            shard = engine::parse_shard(args.shard);
            const auto workdir = std::filesystem::path(args.plan).parent_path();
            effective.outdir = workdir.empty() ? "." : workdir.string();
            effective.input = plan->input.string();
            if (args.report.empty())
                effective.report =
                    (workdir / "reports" / fmt::format("shard-{}-of-{}.json", shard->index, shard->count)).string();
        } else if (args.input.empty() || args.outdir.empty()) {
            throw engine::InputError(
                "encode needs INPUT and -o OUTDIR (or --plan WORKDIR/plan.json --shard I/N for a shard of a plan)");
        }
        if (shard)
            lock.emplace(engine::OutputLock::shared(effective.outdir));
        else
            lock.emplace(engine::OutputLock::whole(effective.outdir));
        report_path = report_path_for(effective.report, effective.outdir);
        std::error_code ec;
        if (report_path && std::filesystem::is_directory(*report_path, ec))
            throw std::invalid_argument(
                fmt::format("--report {} is a directory: name a file (or pass --report none)", report_path->string()));
        engine::JobOptions options = to_job_options(args);
        if (report_path) options.other_outputs.push_back(*report_path);
        if (plan) {
            options = engine::shard_job_options(*plan, effective.outdir, *shard, std::move(options));
            if (options.shard->first_chunk == options.shard->end_chunk) {
                // Still a report, so a farm's bookkeeping finds one per shard.
                std::optional<std::string> written;
                if (report_path) {
                    engine::JobReport empty;
                    empty.input = plan->input.string();
                    empty.frame_rate = av_q2d(plan->frame_rate);
                    empty.shard = engine::ShardSummary{shard->index, shard->count, options.shard->first_chunk,
                                                       options.shard->end_chunk, 0, 0};
                    std::filesystem::create_directories(report_path->parent_path());
                    write_report(*report_path, report_json(empty, true, ""), true);
                    written = report_path->string();
                }
                finish(RunOutcome{0, "", "", since_start(), written});
                fmt::print("ladder: shard {}/{} has no chunks (the plan has {}): nothing to do\n", shard->index,
                           shard->count, plan->chunk_count());
                return 0;
            }
            if (report_path) std::filesystem::create_directories(report_path->parent_path());
        }
        if (const std::string why = engine::realtime_scheduling_allowed(); !why.empty())
            progress.note(engine::NoteLevel::warning,
                          fmt::format("real-time scheduling could not be forbidden ({}): as root, SVT-AV1 makes its "
                                      "threads SCHED_FIFO 99, which starves the decoder and other processes",
                                      why));
        engine::JobReport report = engine::run_job(options, progress, signals.token());
        collector.fill_missing(report);
        std::optional<std::string> written;
        if (report_path) {
            try {
                write_report(*report_path, report_json(report, true, ""), true);
                written = report_path->string();
            } catch (const std::exception& e) {
                return end(1, e.what(), fmt::format("ladder: error: the outputs are complete but {}", e.what()));
            }
        }
        finish(RunOutcome{0, "", "", report.wall_seconds, written});
        if (report.shard) {
            const auto& s = *report.shard;
            fmt::print("ladder: shard {}/{}: chunks {}-{} of {} x {} rung(s): {} encoded, {} already there, in {:.1f} s "
                       "({} frames decoded); chunks in {}\n",
                       shard->index, shard->count, s.first_chunk, s.end_chunk - 1, plan->chunk_count(),
                       plan->ladder.rungs.size(), s.chunks_encoded, s.chunks_kept, report.wall_seconds,
                       report.frames_normalized, (std::filesystem::path(effective.outdir) / ".ladder").string());
            return 0;
        }
        fmt::print("ladder: {} rung{} in {:.1f} s (decode {:.1f} s, {} frames, {} encoder slots)\n",
                   report.rungs.size(), report.rungs.size() == 1 ? "" : "s", report.wall_seconds, report.decode_seconds, report.frames_normalized,
                   report.encoder_slots);
        print_rung_lines(report);
        if (const std::string retried = retry_summary(report.retries); !retried.empty())
            fmt::print("ladder: {}\n", retried);
        return 0;
    } catch (const engine::InputError& e) {
        return end(2, e.what(), fmt::format("ladder: error: {}", e.what()));
    } catch (const std::invalid_argument& e) {
        return end(2, e.what(), fmt::format("ladder: error: {}", e.what()));
    } catch (const engine::Cancelled&) {
        return end(signals.exit_code(), "interrupted", interrupted_message(signals, effective));
    } catch (const std::exception& e) {
        std::string message = fmt::format("ladder: error: the run failed: {}", e.what());
        if (const std::string hint = failure_hint(e, effective.outdir); !hint.empty()) message += "; " + hint;
        std::optional<std::string> written;
        // A failed run's report, from what the progress events said; only
        // into an output folder that exists (never created for it).
        std::error_code ec;
        if (report_path && std::filesystem::is_directory(effective.outdir, ec)) {
            const auto folder = report_path->parent_path();
            if (folder.empty() || std::filesystem::is_directory(folder, ec)) {
                try {
                    write_report(*report_path, collector.partial_report_json(effective.input, since_start(), e.what()),
                                 false);
                    written = report_path->string();
                } catch (const std::exception& w) {
                    // Same line: one failure, one error line (on a full disk
                    // the report usually cannot be written either).
                    message += fmt::format(" (and no report was written: {})", w.what());
                }
            }
        }
        return end(1, e.what(), std::move(message), std::move(written));
    }
}

}  // namespace ladder::cli
