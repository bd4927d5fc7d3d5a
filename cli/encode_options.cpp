#include "cli/encode_command.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/input_options.hpp"
#include "engine/output/output_formats.hpp"
#include "gpu/encode_policy.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/memory_budget.hpp"

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
    cmd.add_option("--verify-chunks", a.verify_chunks,
                   "Which CPU encoders' chunks are decoded (libdav1d) before they are taken, a chunk that does not "
                   "decode being encoded again: auto = SVT-AV1 2.x's (its thread race can write an undecodable "
                   "frame) and an encoder of unknown version; all = every CPU encoder's (costs about 8-10% more "
                   "CPU at preset 8)")
        ->check(CLI::IsMember({"auto", "all"}))
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
        ->each([&a](const std::string&) { a.bit_allocation_given = true; })
        ->capture_default_str();
    cmd.add_option("--rate-control", a.rate_control,
                   "How each rung reaches its bit rate: budget = the rung at one SVT-AV1 CRF, re-encoded until "
                   "within 5% of its target or at the quality ceiling (CRF 10), the same on any machine; vbr = "
                   "one-pass VBR sessions (one encode; a rung can land outside 5% of its target); auto = budget "
                   "where every session is SVT-AV1, the source is decoded on the CPU, the ladder sets no CRF and "
                   "--bit-allocation is not given, else vbr "
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

}  // namespace ladder::cli
