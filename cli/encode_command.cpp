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

// The options a shard takes from its plan instead (--plan excludes them):
// the plan decides these for every shard alike.
using PlanDecided = std::vector<CLI::Option*>;

// INPUT and -o OUTDIR, or --plan P --shard I/N instead of both; --frame-rate
// and --audio-file, which say how the input is read. Returns --plan.
CLI::Option* add_input_output_options(CLI::App& cmd, EncodeArgs& a, PlanDecided& plan_decided) {
    auto* input = cmd.add_option("input", a.input,
                                 "Source video file (any format FFmpeg reads), or numbered images as a printf pattern "
                                 "(frames/img_%05d.png: PNG, JPEG, TIFF, DPX, EXR) with --frame-rate; required "
                                 "unless --plan");
    auto* output = cmd.add_option("-o,--output", a.outdir, "Output directory (created if missing); required unless --plan");
    auto* plan = cmd.add_option("--plan", a.plan,
                                "Encode a shard of this plan (WORKDIR/plan.json from ladder plan) instead: its source, "
                                "ladder and encoder settings; the chunks go to WORKDIR/.ladder, shared with the other "
                                "shards (chunks already there are kept, so a shard can be run again); no outputs "
                                "(ladder stitch WORKDIR makes them); the report goes to "
                                "WORKDIR/reports/shard-I-of-N.json")
                     ->type_name("FILE");
    auto* shard = cmd.add_option("--shard", a.shard,
                                 "With --plan: shard I (0-based) of N, a contiguous range of the plan's chunks for "
                                 "every rung, decoding only the frames they need (Kubernetes Indexed Job: "
                                 "$(JOB_COMPLETION_INDEX)/N; Slurm array: $SLURM_ARRAY_TASK_ID/N)")
                      ->type_name("I/N");
    plan_decided.push_back(add_frame_rate_option(cmd, a.frame_rate));
    plan_decided.push_back(add_audio_file_option(cmd, a.audio_file));
    plan->excludes(input)->excludes(output);
    shard->needs(plan);
    plan->needs(shard);
    return plan;
}

// What is made: the output formats and the ladder's rungs.
void add_ladder_options(CLI::App& cmd, EncodeArgs& a, PlanDecided& plan_decided) {
    auto* format = cmd.add_option("--format", a.format,
                    "Output packaging, a comma list: hls = CMAF/HLS (OUTDIR/master.m3u8, OUTDIR/<rung>/ with "
                    "init.mp4, seg_NNNNN.m4s, index.m3u8, iframes.m3u8, OUTDIR/audio/aac/); dash = "
                    "OUTDIR/manifest.mpd over the same CMAF segments (which it writes too); mp4 = one MP4 per rung "
                    "(OUTDIR/<rung>.mp4, faststart, AAC audio); both = hls,mp4")
        ->capture_default_str();
    auto* ladder = cmd.add_option("--ladder", a.ladder_file,
                                  "Ladder preset JSON ({\"rungs\": [{\"name\", \"height\", \"bitrate_kbps\", "
                                  "optional \"width\", \"maxrate_kbps\", \"bufsize_kbps\", \"crf\"}]}; without \"width\", "
                                  "\"height\" is the rung's short side); see samples/ladders/");
    auto* rung = cmd.add_option("--rung", a.rungs,
                                "A rung NAME=WxH@KBPS, repeatable (e.g. --rung 720p=1280x720@2500); W may be "
                                "omitted (720p=x720@2500): H is then the short side (720x1280 on a portrait "
                                "source) and the other side follows the source's display aspect ratio. Default "
                                "ladder: 1080p 4500k, 720p 2500k, 540p 1200k, 360p 600k, trimmed to the source "
                                "(never upscales)");
    ladder->excludes(rung);
    plan_decided.insert(plan_decided.end(), {format, ladder, rung});
}

// --policy's check: the parser's own message, less the option's name, which
// CLI11 puts in front itself.
std::string check_policy(const std::string& v) {
    try {
        gpu::parse_encode_policy(v);
        return std::string();
    } catch (const std::invalid_argument& e) {
        std::string why = e.what();
        const std::string prefix = "--policy ";
        return why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why;
    }
}

// Which encoder, on which devices, and where and in how many lanes the source
// is decoded.
void add_device_options(CLI::App& cmd, EncodeArgs& a, PlanDecided& plan_decided) {
    auto* encoder = cmd.add_option("--encoder", a.encoder, "CPU AV1 encoder: svt (SVT-AV1) or aom (libaom)")
                        ->check(CLI::IsMember({"svt", "aom"}))
                        ->capture_default_str();
    plan_decided.push_back(encoder);
    cmd.add_option("--policy", a.policy,
                   "Where to encode: auto = every GPU that can encode AV1, else the CPU (says so); all-gpus = every "
                   "AV1-capable GPU, error if none; gpu:I[,J] = these GPUs (indices from 'ladder devices'); nvidia / "
                   "intel = that vendor's GPUs; cpu = software encoders only. An encoder is opened on each selected "
                   "GPU before the run; GPUs that cannot encode are dropped with a warning. CPU sessions join GPU "
                   "ones only when --cpu-slots or --cpu-encoders is given")
        ->check(check_policy)
        ->capture_default_str();
    cmd.add_option("--nvenc-client", a.nvenc_client, "Who drives NVENC: ladder (default) = NVIDIA's API, any FFmpeg; "
                   "ffmpeg = av1_nvenc (FFmpeg 6.0+, opens locked)")->check(CLI::IsMember({"ladder", "ffmpeg"}));
    cmd.add_option("--sessions-per-gpu", a.sessions_per_gpu,
                   "Concurrent encoder sessions per GPU (default: one per NVENC engine of the GPU, as 'ladder "
                   "devices' lists them, at least one; GeForce drivers cap NVENC sessions per system)")
        ->check(CLI::Range(1, 16));
    cmd.add_option("--decode", a.decode,
                   "Where to decode the source: cpu; nvdec = NVDEC on the policy's first NVIDIA GPU (frames are "
                   "scaled there with scale_cuda, then downloaded for CPU encoders or handed to NVENC on the same "
                   "GPU without a copy); auto = nvdec when that GPU can decode the source, else cpu")
        ->check(CLI::IsMember({"auto", "cpu", "nvdec"}))
        ->capture_default_str();
    cmd.add_option("--decoders", a.decoders,
                   "Decode lanes: ranges of the source between key frames (open GOPs too), decoded at once, each "
                   "frame still once (0 = one lane, or one per GPU whose sessions it feeds, and one more whenever "
                   "the encoders wait for frames, up to --max-decoders; 1 = one pass)")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    cmd.add_option("--max-decoders", a.max_decoders,
                   "With --decoders 0: the most decode lanes a run starts or grows to (0 = three NVDEC sessions "
                   "per decoding GPU, one lane per 4 cores on the CPU)")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
}

// The encoder sessions: CPU slots and their threads, retries, how long a
// session runs and at what rate, and where CPU encoders run.
void add_session_options(CLI::App& cmd, EncodeArgs& a, PlanDecided& plan_decided) {
    cmd.add_option("--cpu-slots", a.cpu_slots,
                   "Concurrent CPU encoder sessions (0 = one single-thread session per core below 16 cores; from 16 "
                   "on, one per 2 cores with 3 threads each; limited by memory); a given count gets cores/slots "
                   "threads each")
        ->check(CLI::Range(0, 256))
        ->capture_default_str();
    cmd.add_option("--cpu-threads", a.cpu_threads,
                   "Encoder threads per CPU session (0 = the default layout's, or cores/slots with --cpu-slots); "
                   "more threads than cores overlap the sessions' idle moments at some CPU cost per frame")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    plan_decided.push_back(cmd.add_option("--cpu-encoders", a.cpu_encoders,
                   "Mixed CPU encoder sessions, e.g. svt:2,aom:1 (replaces --encoder and --cpu-slots). With "
                   "--splice-check strict a rung only takes chunks from the encoder kind that made its first chunk; "
                   "the others help other rungs"));
    cmd.add_option("--max-tries", a.max_tries,
                   "Attempts per chunk (on any slot) before the run fails; a slot that fails 3 times in a row is "
                   "quarantined for the rest of the run")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    cmd.add_option("--session-chunks", a.session_chunks,
                   "The most consecutive chunks of a rung one encoder session encodes (a key frame with a sequence "
                   "header at every chunk start); fewer as the run nears its end, so it does not end on one long "
                   "session. 1 = a fresh encoder per chunk. GPU encoders' sessions may take up to 120 unless this "
                   "is given")
        ->check(CLI::Range(1, 1000))
        ->each([&a](const std::string&) { a.session_chunks_given = true; })
        ->capture_default_str();
    cmd.add_option("--bit-allocation", a.bit_allocation,
                   "How a rung's rate is shared among its encoder sessions: complexity = by how hard their chunks "
                   "are, from a fast constant-quality encode of a 180-line copy of each chunk made while the source "
                   "is decoded (more bits where the picture needs them, fewer where it cannot use them), for rungs "
                   "up to 540 lines; even = the same rate for every session")
        ->check(CLI::IsMember({"complexity", "even"}))
        ->capture_default_str();
    cmd.add_option("--rate-control", a.rate_control,
                   "How each rung reaches its bit rate: budget = the rung at one SVT-AV1 CRF, re-encoded until "
                   "within 5% of its target or at the quality ceiling (CRF 10), the same on any machine; vbr = "
                   "one-pass VBR sessions (one encode; a rung can land outside 5% of its target); auto = budget "
                   "where every session is SVT-AV1, the source is decoded on the CPU and the ladder sets no CRF, else vbr "
                   "(the run says why)")
        ->check(CLI::IsMember({"auto", "vbr", "budget"}))
        ->capture_default_str();
    cmd.add_option("--isolation", a.isolation,
                   "Where CPU encoders run: process = one encoder process per CPU slot, so an encoder that "
                   "crashes or hangs costs its chunk (retried on another slot) and never the run; none = inside "
                   "ladder's process. GPU encoders always run inside ladder's process")
        ->check(CLI::IsMember({"process", "none"}))
        ->capture_default_str();
    cmd.add_option("--encoder-timeout", a.encoder_timeout,
                   "Seconds an encoder process may take no frame and return no packet before it is killed as hung "
                   "and its chunk retried (for frames up to 1920x1080; larger frames get proportionally longer)")
        ->check(CLI::Range(0.1, 86400.0))
        ->capture_default_str();
}

// How many raw frames may wait for the encoders, in memory and on a GPU.
void add_memory_budget_options(CLI::App& cmd, EncodeArgs& a) {
    cmd.add_option("--memory-budget", a.memory_budget,
                   "Bytes of raw frames that may wait for encoding (e.g. 2G, 512M; default: a quarter of the "
                   "available memory, at least two chunks of the largest rung). The decoder waits when it is full; "
                   "below one chunk of the largest rung is an error");
    cmd.add_option("--gpu-memory-budget", a.gpu_memory_budget,
                   "The same in GPU memory, for frames that stay on the GPU that decoded them (--decode nvdec "
                   "feeding NVENC on that GPU; default: a quarter of the GPU's memory, from NVML). Below one chunk "
                   "of the largest rung or above the GPU's memory is an error");
}

// What goes into the outputs besides the video's rungs (chunk length, audio,
// subtitles), what happens to an output folder already there, and the
// encode's speed and checks.
void add_output_content_options(CLI::App& cmd, EncodeArgs& a, PlanDecided& plan_decided) {
    auto* segment = cmd.add_option("--segment-seconds", a.segment_seconds,
                                   "Chunk (and segment) length in seconds; every chunk starts with a key frame")
                        ->capture_default_str();
    auto* audio = cmd.add_option("--audio", a.audio,
                                 "aac = every audio track of the source, encoded once to AAC for every rung (stereo "
                                 "per track, plus 5.1 for a track with more channels); aac:LANG[,LANG...] = the "
                                 "tracks tagged with these languages (e.g. aac:eng,fra); none = no audio")
                      ->capture_default_str();
    auto* subtitles = cmd.add_option("--subtitles", a.subtitles,
                                     "all = every text subtitle track (SubRip, mov_text, ASS/SSA, WebVTT) as a "
                                     "segmented WebVTT rendition (and a mov_text track in MP4 outputs); LANG[,LANG...] "
                                     "= the tracks tagged with these languages; none. Picture-based subtitles (PGS, "
                                     "DVB, VobSub) are skipped with a warning")
                          ->capture_default_str();
    auto* overwrite = cmd.add_flag("--overwrite", a.overwrite, "Replace outputs that already exist in OUTDIR");
    auto* resume = cmd.add_flag("--resume", a.resume,
                  "Continue an interrupted run (crash, kill -9, Ctrl-C, SIGTERM) into the same OUTDIR: chunks journaled in "
                  "OUTDIR/.ladder by the earlier run with the same source, ladder and settings are reused, only the "
                  "missing ones are encoded");
    auto* preset = cmd.add_option("--preset", a.preset,
                                  "Encoder speed preset: SVT-AV1 0-13 (default 8), libaom cpu-used 0-8 (default 6); "
                                  "higher is faster")
                       ->check(CLI::Range(-1, 13));
    auto* quality = cmd.add_option("--quality", a.quality,
                                   "Measure each rung: every chunk decoded again and compared with the frames its "
                                   "encoder was given (the source scaled to the rung) by FFmpeg's psnr, ssim or "
                                   "xpsnr filter (xpsnr where FFmpeg has it: 7.0 and newer); per chunk and per rung "
                                   "(mean, lowest chunk) in report.json and the summary; none = off")
                        ->capture_default_str();
    auto* splice = cmd.add_option("--splice-check", a.splice_check,
                    "How chunks of one rung must agree before they are stitched: strict = whole AV1 sequence "
                    "header; config = the fields in av1C only")
        ->check(CLI::IsMember({"strict", "config"}))
        ->capture_default_str();
    plan_decided.insert(plan_decided.end(), {segment, audio, subtitles, overwrite, resume, preset, splice, quality});
}

// What the run tells while it lasts and after: stderr's progress and the report.
void add_progress_and_report_options(CLI::App& cmd, EncodeArgs& a) {
    cmd.add_flag("-q,--quiet", a.quiet, "Print only warnings, errors and the result");
    cmd.add_option("--progress", a.progress,
                   "Progress on stderr: bars = live terminal bars (per rung: percent, fps, slots on it; per slot: "
                   "busy share; decode); plain = event lines and a summary line every 2 s, no ANSI (CI logs); "
                   "json = one JSON object per event per line (docs/progress-json.md); none = errors only; "
                   "auto = bars when stderr is a terminal and TERM is not dumb, else plain")
        ->check(CLI::IsMember({"auto", "bars", "plain", "json", "none"}))
        ->capture_default_str();
    cmd.add_option("--report", a.report,
                   "Write the run's report (JSON: per rung, per slot, per chunk with slot, encoder, start/end "
                   "time, frames, bytes; retries, mismatches, decode and wall time) to FILE; also written, with "
                   "\"ok\": false, when the run fails. Default OUTDIR/report.json; none = no report")
        ->type_name("FILE|none");
}

}  // namespace

// The groups are added in the order --help lists them.
CLI::App* add_encode_command(CLI::App& app, EncodeArgs& a) {
    CLI::App* cmd = app.add_subcommand(
        "encode", "Encode INPUT into an AV1 ladder in OUTDIR (or, with --plan P --shard I/N, shard I of N of a plan "
                  "made by ladder plan)");
    PlanDecided plan_decided;
    CLI::Option* plan = add_input_output_options(*cmd, a, plan_decided);
    add_ladder_options(*cmd, a, plan_decided);
    add_device_options(*cmd, a, plan_decided);
    add_session_options(*cmd, a, plan_decided);
    add_memory_budget_options(*cmd, a);
    add_output_content_options(*cmd, a, plan_decided);
    for (CLI::Option* o : plan_decided) plan->excludes(o);
    add_progress_and_report_options(*cmd, a);
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
    o.session_chunks = a.session_chunks;
    if (a.session_chunks_given) o.hw_session_chunks = a.session_chunks;
    o.bit_allocation = a.bit_allocation == "even" ? engine::BitAllocation::even : engine::BitAllocation::complexity;
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
    fmt::print("ladder: {} rung{} in {:.1f} s (decode {:.1f} s, {} frames, {} encoder slots)\n",
               report.rungs.size(), report.rungs.size() == 1 ? "" : "s", report.wall_seconds, report.decode_seconds, report.frames_normalized,
               report.encoder_slots);
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
