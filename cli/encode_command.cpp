#include "cli/encode_command.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <optional>

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

namespace {

engine::JobOptions to_job_options(const EncodeArgs& a) {
    engine::JobOptions o;
    o.input = a.input;
    o.outdir = a.outdir;
    set_input_options(o, a.frame_rate, a.audio_file, a.audio);
    o.ladder = ladder_from_arguments(a.ladder_file, a.rungs);
    o.policy = gpu::parse_encode_policy(a.policy);
    o.policy.nvenc = a.nvenc_client == "ffmpeg" ? gpu::NvencClient::ffmpeg : gpu::NvencClient::ladder;
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
    o.verify_every_chunk = a.verify_chunks == "all";
    o.session_chunks = a.session_chunks;
    if (a.session_chunks_given) o.hw_session_chunks = a.session_chunks;
    o.session_chunks_given = a.session_chunks_given;
    o.bit_allocation = a.bit_allocation == "even" ? engine::BitAllocation::even : engine::BitAllocation::complexity;
    o.bit_allocation_given = a.bit_allocation_given;
    o.rate_mode = a.rate_control == "budget" ? engine::RateMode::budget
                  : a.rate_control == "vbr"  ? engine::RateMode::vbr
                                             : engine::RateMode::automatic;
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

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A shard's plan and which of its shards this run is (--plan P --shard I/N).
struct ShardTarget {
    engine::JobPlan plan;
    engine::ShardSpec shard;
};

ShardTarget read_shard_target(const EncodeArgs& args) {
    engine::JobPlan plan = engine::read_plan(args.plan);
    return ShardTarget{std::move(plan), engine::parse_shard(args.shard)};
}

// A shard's arguments as the run sees them: the plan's input, and the plan's
// folder as the output folder, where the chunks and the report go.
EncodeArgs shard_args(const EncodeArgs& args, const ShardTarget& target) {
    EncodeArgs effective = args;
    const auto workdir = std::filesystem::path(args.plan).parent_path();
    effective.outdir = workdir.empty() ? "." : workdir.string();
    effective.input = target.plan.input.string();
    if (args.report.empty())
        effective.report = (workdir / "reports" /
                            fmt::format("shard-{}-of-{}.json", target.shard.index, target.shard.count))
                               .string();
    return effective;
}

std::optional<std::filesystem::path> checked_report_path(const EncodeArgs& effective) {
    std::optional<std::filesystem::path> report_path = report_path_for(effective.report, effective.outdir);
    std::error_code ec;
    if (report_path && std::filesystem::is_directory(*report_path, ec))
        throw std::invalid_argument(
            fmt::format("--report {} is a directory: name a file (or pass --report none)", report_path->string()));
    return report_path;
}

// The engine's options: the command line's, or for a shard the plan's with
// the shard's range of chunks.
engine::JobOptions job_options_for(const EncodeArgs& args, const std::optional<ShardTarget>& target,
                                   const EncodeArgs& effective,
                                   const std::optional<std::filesystem::path>& report_path) {
    engine::JobOptions options = to_job_options(args);
    if (report_path) options.other_outputs.push_back(*report_path);
    if (target) options = engine::shard_job_options(target->plan, effective.outdir, target->shard, std::move(options));
    return options;
}

bool shard_has_no_chunks(const engine::JobOptions& options) {
    return options.shard && options.shard->first_chunk == options.shard->end_chunk;
}

// A shard with no chunks still writes its report, so a farm's bookkeeping
// finds one per shard. Returns where, if it was asked for.
std::optional<std::string> write_empty_shard_report(const std::optional<std::filesystem::path>& report_path,
                                                    const ShardTarget& target, const engine::JobOptions& options) {
    if (!report_path) return std::nullopt;
    engine::JobReport empty;
    empty.input = target.plan.input.string();
    empty.frame_rate = av_q2d(target.plan.frame_rate);
    empty.shard = engine::ShardSummary{target.shard.index, target.shard.count, options.shard->first_chunk,
                                       options.shard->end_chunk, 0, 0};
    std::filesystem::create_directories(report_path->parent_path());
    write_report(*report_path, report_json(empty, true, ""), true);
    return report_path->string();
}

void warn_if_realtime_allowed(engine::ProgressSink& progress) {
    if (const std::string why = engine::realtime_scheduling_allowed(); !why.empty())
        progress.note(engine::NoteLevel::warning,
                      fmt::format("real-time scheduling could not be forbidden ({}): as root, SVT-AV1 makes its "
                                  "threads SCHED_FIFO 99, which starves the decoder and other processes",
                                  why));
}

void print_shard_summary(const engine::JobReport& report, const ShardTarget& target, const EncodeArgs& effective) {
    const auto& s = *report.shard;
    fmt::print("ladder: shard {}/{}: chunks {}-{} of {} x {} rung(s): {} encoded, {} already there, in {:.1f} s "
               "({} frames decoded); chunks in {}\n",
               target.shard.index, target.shard.count, s.first_chunk, s.end_chunk - 1, target.plan.chunk_count(),
               target.plan.ladder.rungs.size(), s.chunks_encoded, s.chunks_kept, report.wall_seconds,
               report.frames_normalized, (std::filesystem::path(effective.outdir) / ".ladder").string());
}

void print_ladder_summary(const engine::JobReport& report) {
    // A budget run's passes are its cost: said with the slots.
    const std::string passes =
        report.source_passes > 1 ? fmt::format(", {} passes over the source", report.source_passes) : "";
    fmt::print("ladder: {} rung{} in {:.1f} s (decode {:.1f} s, {} frames, {} encoder slots{})\n",
               report.rungs.size(), report.rungs.size() == 1 ? "" : "s", report.wall_seconds, report.decode_seconds, report.frames_normalized,
               report.encoder_slots, passes);
    print_rung_lines(report);
    if (const std::string retried = retry_summary(report.retries); !retried.empty())
        fmt::print("ladder: {}\n", retried);
}

// What a run shows on stderr while it lasts and how it ends there: the
// progress renderer, the report collector that hears the same events, and
// for json and bars stderr itself, captured: what libraries print there goes
// through the renderer (a "log" event, a line above the bars).
class RunConsole {
public:
    RunConsole(ProgressMode mode, bool quiet, std::chrono::steady_clock::time_point started)
        : started_(started),
          capture_(progress_captures_stderr(mode, quiet) ? std::make_unique<StderrCapture>() : nullptr),
          renderer_(make_progress_renderer(mode, capture_ ? capture_->stream() : stderr, quiet)),
          progress_(*renderer_, collector_) {
        if (capture_) capture_->start([r = renderer_.get()](const std::string& line) { r->log_line(line); });
    }
    // Whatever happens, the capture's reader stops before the renderer goes.
    ~RunConsole() {
        if (capture_) capture_->stop();
    }
    RunConsole(const RunConsole&) = delete;
    RunConsole& operator=(const RunConsole&) = delete;

    engine::ProgressSink& progress() { return progress_; }
    ReportCollector& collector() { return collector_; }
    double seconds() const { return seconds_since(started_); }

    void finish(const RunOutcome& outcome) {
        if (capture_) capture_->stop();
        renderer_->finish(outcome);
    }
    // Finishes with `code` and returns it.
    int end(int code, const std::string& error, std::string message,
            std::optional<std::string> report_written = std::nullopt) {
        finish(RunOutcome{code, error, std::move(message), seconds(), std::move(report_written)});
        return code;
    }

private:
    std::chrono::steady_clock::time_point started_;
    std::unique_ptr<StderrCapture> capture_;
    std::unique_ptr<ProgressRenderer> renderer_;
    ReportCollector collector_;
    ProgressTee progress_;
};

// A failed run's report, from what the progress events said; only into an
// output folder that exists (never created for it). `written` is where it
// went; `not_written` why it could not be written there.
struct FailedRunReport {
    std::optional<std::string> written;
    std::optional<std::string> not_written;
};

FailedRunReport write_failed_run_report(const std::optional<std::filesystem::path>& report_path,
                                        const EncodeArgs& effective, RunConsole& console, const std::string& error) {
    std::error_code ec;
    if (!report_path || !std::filesystem::is_directory(effective.outdir, ec)) return {};
    const auto folder = report_path->parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) return {};
    try {
        write_report(*report_path,
                     console.collector().partial_report_json(effective.input, console.seconds(), error), false);
        return {report_path->string(), std::nullopt};
    } catch (const std::exception& w) {
        return {std::nullopt, std::string(w.what())};
    }
}

// The line a failed run ends with, with a hint where one helps.
std::string failed_run_message(const std::exception& e, const EncodeArgs& effective) {
    std::string message = fmt::format("ladder: error: the run failed: {}", e.what());
    if (const std::string hint = failure_hint(e, effective.outdir); !hint.empty()) message += "; " + hint;
    return message;
}

}  // namespace

int run_encode(const EncodeArgs& args) {
    // First: threads started after this (the renderer's, the engine's)
    // inherit the blocked SIGINT/SIGTERM.
    SignalStop signals;
    const auto started = std::chrono::steady_clock::now();
    ProgressMode mode;
    try {
        mode = resolve_progress_mode(args.progress, ::isatty(STDERR_FILENO) == 1, std::getenv("TERM"));
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "ladder: error: {}\n", e.what());
        return 2;
    }
    RunConsole console(mode, args.quiet, started);

    std::optional<std::filesystem::path> report_path;
    // With --plan, where the chunks and the report go: the plan's folder.
    EncodeArgs effective = args;
    // One run per output folder, from before anything is written there
    // until the report is (engine/output/output_lock.hpp).
    std::optional<engine::OutputLock> lock;
    try {
        std::optional<ShardTarget> target;
        if (!args.plan.empty()) {
            target = read_shard_target(args);
            effective = shard_args(args, *target);
        } else if (args.input.empty() || args.outdir.empty()) {
            throw engine::InputError(
                "encode needs INPUT and -o OUTDIR (or --plan WORKDIR/plan.json --shard I/N for a shard of a plan)");
        }
        if (target)
            lock.emplace(engine::OutputLock::shared(effective.outdir));
        else
            lock.emplace(engine::OutputLock::whole(effective.outdir));
        report_path = checked_report_path(effective);
        const engine::JobOptions options = job_options_for(args, target, effective, report_path);
        if (target && shard_has_no_chunks(options)) {
            std::optional<std::string> written = write_empty_shard_report(report_path, *target, options);
            console.finish(RunOutcome{0, "", "", console.seconds(), std::move(written)});
            fmt::print("ladder: shard {}/{} has no chunks (the plan has {}): nothing to do\n", target->shard.index,
                       target->shard.count, target->plan.chunk_count());
            return 0;
        }
        if (target && report_path) std::filesystem::create_directories(report_path->parent_path());
        warn_if_realtime_allowed(console.progress());
        engine::JobReport report = engine::run_job(options, console.progress(), signals.token());
        console.collector().fill_missing(report);
        std::optional<std::string> written;
        if (report_path) {
            try {
                write_report(*report_path, report_json(report, true, ""), true);
                written = report_path->string();
            } catch (const std::exception& e) {
                return console.end(1, e.what(), fmt::format("ladder: error: the outputs are complete but {}", e.what()));
            }
        }
        console.finish(RunOutcome{0, "", "", report.wall_seconds, written});
        if (report.shard)
            print_shard_summary(report, *target, effective);
        else
            print_ladder_summary(report);
        return 0;
    } catch (const engine::InputError& e) {
        return console.end(2, e.what(), fmt::format("ladder: error: {}", e.what()));
    } catch (const std::invalid_argument& e) {
        return console.end(2, e.what(), fmt::format("ladder: error: {}", e.what()));
    } catch (const engine::Cancelled&) {
        return console.end(signals.exit_code(), "interrupted", interrupted_message(signals, effective));
    } catch (const std::exception& e) {
        std::string message = failed_run_message(e, effective);
        FailedRunReport report = write_failed_run_report(report_path, effective, console, e.what());
        // Same line: one failure, one error line (on a full disk the report
        // usually cannot be written either).
        if (report.not_written) message += fmt::format(" (and no report was written: {})", *report.not_written);
        return console.end(1, e.what(), std::move(message), std::move(report.written));
    }
}

}  // namespace ladder::cli
