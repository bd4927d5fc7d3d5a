#include "engine/run/job.hpp"
#include "engine/run/run_encoders.hpp"
#include "av/compat.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "av/av_error.hpp"
#include "engine/run/audio_file.hpp"
#include "engine/rung/chunk_analyzer.hpp"
#include "engine/schedule/chunk_dispatcher.hpp"
#include "engine/output/chunk_journal.hpp"
#include "engine/source/decode_cuts.hpp"
#include "engine/run/decode_lane_plan.hpp"
#include "engine/source/decode_lanes.hpp"
#include "engine/encode/encoder_worker.hpp"
#include "engine/base/errors.hpp"
#include "engine/schedule/frame_budget.hpp"
#include "engine/schedule/gpu_frame_budgets.hpp"
#include "engine/source/image_sequence.hpp"
#include "engine/run/job_media.hpp"
#include "engine/rung/lane_consumers.hpp"
#include "engine/run/output_stage.hpp"
#include "engine/run/preflight.hpp"
#include "engine/run/run_journal.hpp"
#include "engine/encode/process/process_encoder.hpp"
#include "engine/rung/rung.hpp"
#include "engine/run/budget_search.hpp"
#include "engine/rung/rung_crf_search.hpp"
#include "engine/source/source_info.hpp"
#include "engine/base/stage_threads.hpp"
#include "gpu/cpu_info.hpp"

namespace ladder::engine {

namespace {

// The frames a run decodes and encodes, numbered as in the whole source: a
// shard's are those of its chunks; end 0 means to the end of the source.
struct FrameSpan {
    std::int64_t first = 0;
    std::int64_t end = 0;
};

FrameSpan frame_span(const JobOptions& options, int chunk_frames) {
    if (!options.shard) return {};
    const auto& shard = *options.shard;
    return {static_cast<std::int64_t>(shard.first_chunk) * chunk_frames,
            std::min<std::int64_t>(static_cast<std::int64_t>(shard.end_chunk) * chunk_frames, shard.plan.frames)};
}

void note_source_handling(const SourceInfo& src, ProgressSink& progress) {
    if (src.interlaced)
        progress.note(NoteLevel::info,
                      fmt::format("input {} is interlaced: deinterlacing it (bwdif, one frame per frame, {:.3f} fps)",
                                  src.path, av_q2d(src.frame_rate)));
    for (const auto& jump : src.timestamp_jumps)
        if (jump.stream == src.video_stream)
            progress.note(NoteLevel::warning,
                          fmt::format("input {}: the timestamps jump by {:+.3f} s at {:.3f} s (byte {}): the content "
                                      "continues without the gap{}",
                                      src.path, jump.jump_seconds, jump.at_seconds, jump.pos,
                                      jump.jump_seconds > 0 ? "" : " (nothing after it is dropped)"));
    if (src.rotation != 0)
        progress.note(NoteLevel::info, fmt::format("input {} is rotated: turning it {} degrees clockwise ({}x{})",
                                                    src.path, src.rotation, src.display_width, src.display_height));
}

// The rungs: each one's spec and settings, codec contract, rate feedback,
// and (outside a shard) writer; each rung is pending. crfs: under budget
// rate control, each rung's chunks' CRFs in this pass.
Rungs make_rungs(const JobOptions& options, const CheckedSource& source, std::int64_t frames, OutputStage* output,
                 ChunkJournal& journal, ProgressSink& progress, const std::vector<ChunkCrfs>& crfs = {}) {
    Rungs rungs;
    for (std::size_t i = 0; i < source.ladder.rungs.size(); ++i) {
        RungParts parts;
        parts.index = static_cast<int>(i);
        parts.spec = source.ladder.rungs[i];
        if (i < crfs.size()) {
            parts.spec.crf = crfs[i].crf;
            parts.chunk_crfs = crfs[i];
        }
        parts.settings = settings_for(parts.spec, source.info, options.preset);
        parts.invariant = std::make_unique<RungCodecInvariant>(options.splice_check);
        parts.rate = std::make_unique<RungRateFeedback>(parts.settings.bitrate_kbps,
                                                        static_cast<double>(frames) / av_q2d(source.info.frame_rate));
        if (output) parts.writer = output->make_writer(i, progress);
        parts.journal = &journal;
        parts.chunk_frames = source.chunk_frames;
        rungs.push_back(std::make_unique<Rung>(std::move(parts), progress));
        progress.rung_state(static_cast<int>(i), source.ladder.rungs[i].name, RungState::pending);
    }
    return rungs;
}

// The complexity analysis that shares each rung's rate among its sessions;
// null for even shares.
std::unique_ptr<ChunkAnalyzer> make_analyzer(const JobOptions& options, const CheckedSource& source,
                                             std::size_t rung_count, std::int64_t frames, int lanes,
                                             EncoderProcesses* processes, int slot_id, ProgressSink& progress) {
    if (options.bit_allocation != BitAllocation::complexity || options.rate_mode == RateMode::budget)
        return nullptr;
    if (!ChunkAnalyzer::available()) {
        progress.note(NoteLevel::info, "no libsvtav1 in this FFmpeg build for the complexity analysis: every "
                                       "session asks for its rung's plain rate");
        return nullptr;
    }
    const auto expected_chunks = static_cast<int>((frames + source.chunk_frames - 1) / source.chunk_frames);
    // Its encoder runs where the CPU slots' do (with test encoders, the real
    // one in this process).
    EncoderFactory encoders = processes ? process_encoder_factory(*processes) : EncoderFactory(make_encoder_backend);
    auto analyzer = std::make_unique<ChunkAnalyzer>(source.info, source.chunk_frames, expected_chunks,
                                                    static_cast<int>(rung_count), std::move(encoders), slot_id,
                                                    progress, lanes);
    return analyzer;
}

// Every rung in this many sessions or more: a session's one-pass rate
// control answers a request only when it ends, and the rung's later sessions
// correct what its first ones made (RungRateFeedback). One session over a
// 24-s rung was as far off as FFmpeg's one process (-31% at 1080p on
// scene-cuts, docs/benchmarks.md).
constexpr int kMinSessionsPerRung = 4;

std::unique_ptr<ChunkDispatcher> make_dispatcher(const JobOptions& options, DispatchMode mode,
                                                 const Rungs& rungs, std::int64_t frames,
                                                 int chunk_frames, const gpu::GpuPool& pool) {
    const bool fixed = mode == DispatchMode::fixed;
    std::vector<RungPlan> plans;
    for (const auto& r : rungs)
        plans.push_back(RungPlan{r->name(), static_cast<std::int64_t>(r->spec().width) * r->spec().height, frames,
                                 chunk_frames});
    const std::size_t queue_capacity = options.queue_chunks ? options.queue_chunks : std::numeric_limits<int>::max();
    auto dispatcher = std::make_unique<ChunkDispatcher>(std::move(plans), queue_capacity, mode,
                                                        options.max_tries,
                                                        fixed ? static_cast<int>(rungs.size()) : static_cast<int>(pool.size()),
                                                        options.session_chunks, kMinSessionsPerRung,
                                                        options.hw_session_chunks);
    // With helper dispatch the dispatcher's workers are the pool's slots.
    if (!fixed)
        for (const auto& slot : pool.slots()) dispatcher->add_worker(slot.encoder, -1, gpu::nvenc_gpu(slot));
    return dispatcher;
}

// When each step of the run ended, in seconds since it started
// (report.json phase_seconds).
class Phases {
public:
    explicit Phases(std::chrono::steady_clock::time_point started) : started_(started) {}
    void mark(const char* phase) { at(phase, std::chrono::steady_clock::now()); }
    void at(const std::string& phase, std::chrono::steady_clock::time_point t) {
        list_.emplace_back(phase, seconds_since_start(t));
    }
    double seconds_since_start(std::chrono::steady_clock::time_point t) const {
        return std::chrono::duration<double>(t - started_).count();
    }
    const std::vector<std::pair<std::string, double>>& list() const { return list_; }
    std::chrono::steady_clock::time_point started() const { return started_; }

private:
    std::chrono::steady_clock::time_point started_;
    std::vector<std::pair<std::string, double>> list_;
};

// The running stages, one thread each, until they all end. Each stage
// closes what it feeds when it ends, after its failure (if any) stopped
// the run. Returns the first real failure; stopped says the run stopped.
struct StagesOutcome {
    bool stopped = false;
    std::exception_ptr failure;
};

StagesOutcome run_stages(const JobOptions& options, const ThreadStarter& start_thread, DecodeLanes& lanes,
                         int most_lanes,
                         Rungs& rungs, LaneConsumers& consumers, const gpu::GpuPool& pool,
                         ChunkDispatcher& dispatcher,
                         ChunkAnalyzer* analyzer, OutputStage* output, SubtitleTracks* subtitles,
                         EncoderWorkers& workers,
                         Phases& phases,
                         std::stop_token external_stop) {
    StageThreads stages(external_stop, start_thread);
    std::stop_callback stop_claims(stages.token(), [&workers] { workers.no_more_work.request_stop(); });
    lanes.start(stages);
    if (analyzer) analyzer->start(stages);
    consumers.start(stages);
    for (auto& rung : rungs)
        if (RungFinalizer* writer = rung->writer())
            stages.start(fmt::format("rung {} writer", rung->name()), [writer](std::stop_token t) { writer->run(t); });
    if (subtitles)
        stages.start("subtitles", [subtitles](std::stop_token t) { subtitles->read(t); },
                     [subtitles] { subtitles->abandon(); });
    if (output) output->start_rendition_writers(stages);
    for (std::size_t i = 0; i < workers.workers.size(); ++i)
        stages.start(fmt::format("encoder worker {}", i),
                     [w = workers.workers[i].get()](std::stop_token t) { w->run(t); });
    if (most_lanes > lanes.size())
        stages.start("decode lanes", [&](std::stop_token t) {
            grow_decode_lanes(t, stages, lanes, consumers, most_lanes, 2 * options.segment_seconds,
                              [&] { return encoders_wait_for_frames(pool, dispatcher); });
        });
    phases.mark("stages_started");
    stages.join();
    phases.mark("stages_joined");
    // GPU sessions still open for a rung close before the outputs are
    // finished (a worker stopped in the middle left them).
    workers.idle_encoders.clear();
    phases.mark("kept_encoders_closed");
    return {stages.stopping(), stages.failure()};
}

void report_shard(JobReport& report, const JobOptions::Shard& shard, int kept, const EncoderWorkers& w) {
    ShardSummary summary;
    summary.index = shard.spec.index;
    summary.count = shard.spec.count;
    summary.first_chunk = shard.first_chunk;
    summary.end_chunk = shard.end_chunk;
    summary.chunks_kept = kept;
    for (const auto& slot : w.slot_reports) summary.chunks_encoded += slot.chunks;
    report.shard = summary;
}

// The output folder, checked and prepared. A shard writes no outputs (the
// plan's journal, shared by all shards, is its output): its folder is only
// checked.
std::optional<OutputStage> prepare_outputs(const JobOptions& options, const CheckedSource& source,
                                           const AudioSelection& audio, const SubtitleSelection& subtitles) {
    const std::vector<std::filesystem::path> inputs{options.input, options.audio_file};
    if (options.shard) {
        refuse_outputs_over_inputs(options.outdir, ladder_own_names(), inputs, options.other_outputs);
        refuse_links_in_the_way(options.outdir, options.other_outputs);
        return std::nullopt;
    }
    return std::optional<OutputStage>(
        std::in_place, OutputRequest{options.outdir, source.ladder.rungs, options.formats, rendition_ids(audio),
                                     rendition_ids(subtitles), options.overwrite || options.resume, inputs,
                                     options.other_outputs});
}

void note_run(const CheckedSource& source, const gpu::GpuPool& pool, const Encoders& encoders,
              const JobOptions& options, ProgressSink& progress) {
    const SourceInfo& src = source.info;
    const auto verified = verified_encoders(pool, options.verify_every_chunk);
    const std::string checked =
        verified.empty() ? "" : fmt::format("; each chunk of {} decoded before it is taken", fmt::join(verified, ", "));
    progress.note(NoteLevel::info,
                  fmt::format("{}: {}x{} {} fps, {} frames; {} rung(s), {}-frame chunks; {} encoder sessions ({}); "
                              "decoding on {}; rate control {}{}",
                              src.path, src.display_width, src.display_height, av_q2d(src.frame_rate),
                              src.estimated_frames, source.ladder.rungs.size(), source.chunk_frames, pool.size(),
                              describe_slots(pool), encoders.devices.decode_label(),
                              options.rate_mode == RateMode::budget
                                  ? "budget (each rung at a constant quality searched to within 5% of its target)"
                                  : "vbr",
                              checked));
}

// Whether a rung the analysis speaks for may still start a session (what
// it measures is read only then).
std::function<bool()> rungs_still_starting(const Rungs& rungs, const ChunkAnalyzer& analyzer,
                                           const ChunkDispatcher& dispatcher) {
    std::vector<int> covered;
    for (std::size_t i = 0; i < rungs.size(); ++i)
        if (analyzer.covers(rungs[i]->spec())) covered.push_back(static_cast<int>(i));
    return [covered, &dispatcher] {
        return std::any_of(covered.begin(), covered.end(), [&](int r) { return !dispatcher.all_handed_out(r); });
    };
}

// The complexity analysis shares the rate of the rungs it covers.
void share_by_complexity(Rungs& rungs, const ChunkAnalyzer* analyzer) {
    if (!analyzer) return;
    for (auto& r : rungs)
        if (analyzer->covers(r->spec())) r->share_by(&analyzer->complexity());
}

int resumed_chunks(const Rungs& rungs) {
    int n = 0;
    for (const auto& r : rungs) n += r->resumed();
    return n;
}

// The memory the run had and used, on the host and on each GPU.
void report_memory(JobReport& report, const MemoryBudget& memory, const GpuFrameBudgets& gpu_memory) {
    report.memory_budget = memory.limit();
    report.peak_queued_bytes = memory.peak();
    if (gpu_memory.empty()) return;
    report.gpu_memory_budget = gpu_memory.largest_limit();
    report.peak_gpu_queued_bytes = gpu_memory.largest_peak();
    for (int g : gpu_memory.gpus()) report.gpu_memory.push_back({g, gpu_memory.of(g)->limit(), gpu_memory.of(g)->peak()});
}

// What the source gave: decoded, normalized, its audio.
void report_source(JobReport& report, const SourceInfo& src, const DecodeLanes& lanes, const AudioTracks* audio,
                   const Encoders& encoders) {
    report.input = src.path;
    const PumpCounters decoded = lanes.totals();
    report.source_video_packets = decoded.video_packets;
    report.source_frames_decoded = decoded.frames_decoded;
    report.frames_normalized = decoded.frames_normalized;
    report.audio_packets = audio ? audio->packet_count() : 0;
    report.frame_rate = av_q2d(src.frame_rate);
    report.decode_seconds = decoded.busy_seconds;
    report.decode_lanes = lanes.records();
    report.decode_device = encoders.devices.decode_label();
    report.frames_decoded_on_gpu = decoded.frames_on_gpu;
    report.dropped_devices = encoders.devices.dropped;
    report.gpu_encoder_probes = encoders.devices.encoder_probes;
}

// What run_job set up before the data path.
struct RunContext {
    const JobOptions& options;
    const JobSeams& seams;
    const CheckedSource& source;
    Encoders& encoders;
    const gpu::CpuInfo& cpu;
    MemoryBudget& memory;
    GpuFrameBudgets& gpu_memory;
    gpu::GpuPool& pool;
    Phases& phases;
    ProgressSink& progress;
    int passes = 0;  // over the source (budget rate control makes several)
    // Budget rate control's first pass keeps the source's frames here, when
    // they fit, and the later passes hand them on instead of decoding.
    DecodedFrames* kept = nullptr;
    int replayed = 0;  // passes that decoded nothing
};

// The frames the data path encodes, the tracks that go with them and where
// the rungs are written (null in a shard).
struct RunMedia {
    std::int64_t frames = 0;
    FrameSpan span;
    AudioTracks* audio = nullptr;
    SubtitleTracks* subtitles = nullptr;
    OutputStage* output = nullptr;
};

// Steps 4 and 5 of run_job: the data path, in the order the frames go: the
// decode lanes, each rung's scalers (a chunk to the dispatcher's queue, or,
// when an interrupted run journaled it, straight to the rung's writer), the
// dispatcher, the encoder workers, each rung's writer; run as stages until
// the source is encoded, a stage fails or the run is stopped (then the
// encoder processes are killed: nothing they do is wanted now). Fills in
// what the decode and the encoders did.
StagesOutcome encode_rungs(RunContext& run, Rungs& rungs, const RunMedia& media, JobReport& report,
                           std::stop_token stop) {
    const JobOptions& options = run.options;
    const CheckedSource& source = run.source;
    const SourceInfo& src = source.info;
    Encoders& encoders = run.encoders;
    GpuFrameBudgets& gpu_memory = run.gpu_memory;
    ProgressSink& progress = run.progress;
    const DecodedFrames* replay = run.kept && run.kept->complete() ? run.kept : nullptr;
    // Lanes start where a seek by time lands: not on a timeline with jumps.
    const LaneCounts lane_counts = src.timestamp_jumps.empty() && !replay
                                       ? decode_lanes_wanted(options, encoders.devices, run.cpu)
                                       : LaneCounts{1, 1};
    const std::vector<std::int64_t> cuts =
        replay ? std::vector<std::int64_t>{}
               : find_decode_cuts(source.input->spec(), src.video_stream, lane_counts.first, 2 * options.segment_seconds);
    std::unique_ptr<ChunkAnalyzer> analyzer =
        make_analyzer(options, source, rungs.size(), media.frames, static_cast<int>(cuts.size()) + 1,
                      encoders.processes.get(), static_cast<int>(run.pool.size()), progress);
    share_by_complexity(rungs, analyzer.get());
    // The pre-flight's demuxer serves the first pass; a later one reads the
    // source again from the start, on a demuxer of its own.
    std::unique_ptr<av::InputFile> reopened;
    if (run.passes++ > 0 && !replay) reopened = std::make_unique<av::InputFile>(source.input->spec());
    if (replay) ++run.replayed;
    // Kept frames are handed on in as many lanes as the source may be
    // decoded in: each lane has its scalers.
    const FramesReplay frames_replay{
        replay, replay ? decode_lanes_wanted(options, encoders.devices, run.cpu).most : 1, source.chunk_frames};
    DecodeLanes lanes(reopened ? *reopened : *source.input, src, cuts, static_cast<int>(rungs.size()) + (analyzer ? 1 : 0),
                      static_cast<std::size_t>(std::max(8, source.chunk_frames / 4)), media.audio, progress,
                      decode_devices(encoders.devices), lane_counts.most > lane_counts.first, frames_replay);
    const bool keeping = run.kept && run.kept->keeping();
    if (keeping) lanes.keep_in(run.kept);
    if (!replay) note_decode_lanes(src, lane_counts.first, lanes.size(), progress);  // a replay decodes nothing
    if (!gpu_memory.empty())
        note_gpus_without_lanes(static_cast<int>(gpu_memory.gpus().size()), lanes.size(),
                                lane_counts.most > lane_counts.first, progress);
    if (options.shard) lanes.limit_to(FrameRange{media.span.first, media.span.end, options.shard->plan.origin_pts});
    auto dispatcher = make_dispatcher(options, run.seams.dispatch, rungs, media.frames, source.chunk_frames, run.pool);
    if (!gpu_memory.empty()) dispatcher->set_frame_gpus(gpu_memory.gpus());
    if (analyzer) analyzer->measure_while(rungs_still_starting(rungs, *analyzer, *dispatcher));
    LaneConsumers consumers(LaneConsumerSetup{.rungs = &rungs,
                                              .lanes = &lanes,
                                              .dispatcher = dispatcher.get(),
                                              .memory = &run.memory,
                                              .gpu_memory = [&gpu_memory](int gpu) { return gpu_memory.of(gpu); },
                                              .analyzer = analyzer.get(),
                                              .pix_fmt = src.pix_fmt,
                                              .chunk_frames = source.chunk_frames,
                                              .keep_on_gpu = !gpu_memory.empty()});
    EncoderWorkers workers;
    // Sessions are numbered across the run's passes (budget makes several).
    workers.session_ids = static_cast<int>(report.sessions.size());
    make_workers(workers, options, run.seams.dispatch, run.pool, *dispatcher, rungs, encoders.factory, run.cpu,
                 run.phases.started(), progress);
    const StagesOutcome outcome =
        run_stages(options, run.seams.start_thread, lanes, lane_counts.most, rungs, consumers, run.pool, *dispatcher,
                   analyzer.get(), media.output, media.subtitles, workers, run.phases, stop);
    if (keeping) run.kept->seal(lanes.totals(), !outcome.stopped);
    if (outcome.stopped) {
        if (encoders.processes) encoders.processes->kill_all();
        return outcome;
    }
    lanes.note_frames_missing();
    report_source(report, src, lanes, media.audio, encoders);
    report.resumed_chunks = resumed_chunks(rungs);
    if (options.shard) report_shard(report, *options.shard, report.resumed_chunks, workers);
    report_slots(report, workers, encoders.processes.get());
    return outcome;
}

// Budget rate control's search passes (JobOptions::rate_mode budget):
// each pass encodes the rungs searching at the CRF each asks, takes every
// settled chunk from the journal and drops the chunks of rungs that wait,
// until every rung is settled. Nothing is written but the journal. Returns
// the stopped pass's outcome, if one stopped.
StagesOutcome search_budgets(RunContext& run, LadderCrfSearch& search, ChunkJournal& journal, const RunMedia& media,
                             JobReport& report, std::stop_token stop) {
    journal.take_own_chunks();
    while (!search.settled()) {
        std::vector<bool> searched(search.size());
        PassStarted started{run.passes + 1, false, {}};
        for (std::size_t i = 0; i < search.size(); ++i) {
            searched[i] = search.searching(i);
            if (searched[i]) started.searching.push_back(run.source.ladder.rungs[i].name);
        }
        run.progress.pass_started(started);
        Rungs rungs = make_rungs(run.options, run.source, media.frames, nullptr, journal, run.progress,
                                 chunk_crfs_of(search));
        // Slots retire from their pool as a pass ends: each pass has its own.
        gpu::GpuPool pool(run.encoders.devices.slots);
        RunContext pass{run.options, run.seams,  run.source, run.encoders, run.cpu,    run.memory, run.gpu_memory,
                        pool,        run.phases, run.progress, run.passes, run.kept, run.replayed};
        const StagesOutcome outcome = encode_rungs(pass, rungs, RunMedia{media.frames, media.span}, report, stop);
        run.passes = pass.passes;
        run.replayed = pass.replayed;
        if (outcome.stopped) return outcome;
        record_pass(search, searched, rungs, av_q2d(run.source.info.frame_rate), run.progress);
    }
    return {};
}

// Budget rate control's search, settled by the passes (none under vbr);
// outcome says whether a pass stopped. Announces the writing pass.
std::optional<LadderCrfSearch> settle_budgets(RunContext& run, ChunkJournal& journal, const RunMedia& media,
                                              JobReport& report, StagesOutcome& outcome, std::stop_token stop) {
    if (!budget_searches(run.options)) return std::nullopt;
    std::optional<LadderCrfSearch> search(ladder_search(run.source.ladder, run.source.info.frame_rate));
    outcome = search_budgets(run, *search, journal, media, report, stop);
    run.phases.mark("budget_searched");
    if (!outcome.stopped) run.progress.pass_started(PassStarted{run.passes + 1, true, {}});  // the writing pass
    return search;
}

// What the run's end adds to the report the data path filled in.
void finish_report(RunContext& run, const Rungs& rungs, const std::optional<LadderCrfSearch>& search,
                   JobReport& report) {
    report.encoder_slots = static_cast<int>(run.pool.size());
    if (run.options.quality != QualityMetric::none) report.quality_metric = quality_metric_name(run.options.quality);
    report_memory(report, run.memory, run.gpu_memory);
    OutputStage::fill_report(rungs, report);
    report_searches(search, report);
    report.source_passes = run.passes;
    report.replayed_passes = run.replayed;
    report.kept_frame_bytes = run.kept ? run.kept->bytes() : 0;
    run.phases.mark("reported");
    report.phase_seconds = run.phases.list();
    report.rate_control = run.options.rate_mode == RateMode::budget ? "budget" : "vbr";
    const auto checked = verified_encoders(run.pool, run.options.verify_every_chunk);
    report.decode_checked_encoders.assign(checked.begin(), checked.end());
    report.wall_seconds = run.phases.seconds_since_start(std::chrono::steady_clock::now());
}

}  // namespace

int chunk_frames_for(double segment_seconds, AVRational frame_rate) {
    if (!(segment_seconds > 0) || segment_seconds > 60)
        throw InputError(fmt::format("--segment-seconds {} must be within (0, 60]", segment_seconds));
    return std::max(1, static_cast<int>(std::lround(segment_seconds * av_q2d(frame_rate))));
}

JobReport run_job(const JobOptions& asked, ProgressSink& progress, std::stop_token external_stop,
                  const JobSeams& seams) {
    Phases phases(std::chrono::steady_clock::now());

    // 1. Pre-flight: everything that can be wrong with the request fails
    // here, before a thread starts or a file is written.
    CheckedSource source = check_source_and_ladder(asked, progress, external_stop);
    phases.mark("source_checked");
    const SourceInfo& src = source.info;
    const FrameSpan span = frame_span(asked, source.chunk_frames);
    check_budget_request(asked);
    Encoders encoders = plan_encoders(asked, seams, source);
    const JobOptions options = with_rate_mode_chosen(asked, encoders.devices);  // slots and decoder known now
    const gpu::CpuInfo cpu = gpu::read_cpu_info();
    const ChunkBytes chunk_bytes = largest_chunk(source.ladder, src.pix_fmt, source.chunk_frames);
    MemoryBudget memory(host_frame_budget(options.memory_budget, cpu.available_memory_bytes, chunk_bytes));
    // Fixed dispatch gives each rung one worker, on one GPU: a rung's chunks
    // cannot wait in the memory of several.
    if (seams.dispatch == DispatchMode::fixed && encoders.devices.decode_gpus.size() > 1)
        encoders.devices.keep_frames_on_gpu = false;
    // Frames that stay on the GPU that decoded them count against its
    // memory, not the host's.
    std::string gpu_memory_note;
    GpuFrameBudgets gpu_memory(encoders.devices, options.gpu_memory_budget, chunk_bytes, gpu_memory_note);
    // `ladder stitch` encodes a plan's audio and subtitles, once.
    const AudioSelection audio_selection =
        options.shard ? AudioSelection{} : choose_audio(options.audio, src, progress);
    const SubtitleSelection subtitle_selection =
        options.shard ? SubtitleSelection{} : choose_subtitles(options.subtitles, src, progress);

    // 2. The output folder, checked and prepared; the source's tracks; the journal.
    std::optional<OutputStage> output = prepare_outputs(options, source, audio_selection, subtitle_selection);
    std::unique_ptr<AudioTracks> audio = open_audio(audio_selection, source);
    std::unique_ptr<SubtitleTracks> subtitles = open_subtitles(subtitle_selection, source.input->get(), src);
    note_source_handling(src, progress);
    ChunkJournal journal = open_journal(options, source, progress);
    for (const auto& [level, message] : encoders.devices.notes) progress.note(level, message);
    if (!gpu_memory_note.empty()) progress.note(NoteLevel::info, gpu_memory_note);
    for (const auto& [step, at] : encoders.devices.steps) phases.at(step, at);
    phases.mark("preflight");
    gpu::GpuPool pool(encoders.devices.slots);
    note_run(source, pool, encoders, options, progress);

    // 3. The rungs, each with its writer (under budget rate control, once
    // the search passes have settled each rung's CRFs).
    if (output) output->open(audio.get(), subtitles.get(), source.chunk_frames, src.frame_rate, src.hdr);
    const std::int64_t frames = options.shard ? span.end - span.first : src.estimated_frames;
    JobReport report;
    RunContext run{options, seams, source, encoders, cpu, memory, gpu_memory, pool, phases, progress};
    const std::unique_ptr<DecodedFrames> kept = keep_frames_for_passes(options, src, frames, memory);
    run.kept = kept.get();
    StagesOutcome outcome;
    const std::optional<LadderCrfSearch> search =
        settle_budgets(run, journal, RunMedia{frames, span}, report, outcome, external_stop);
    Rungs rungs = make_rungs(options, source, frames, output ? &*output : nullptr, journal, progress,
                             chunk_crfs_of(search, options));

    // 4. and 5. The data path, running until the source is encoded, a
    // stage fails or the run is stopped.
    if (!outcome.stopped)
        outcome = encode_rungs(run, rungs,
                               RunMedia{frames, span, audio.get(), subtitles.get(), output ? &*output : nullptr},
                               report, external_stop);

    // 6. The outputs: withdrawn when the run did not complete, else made
    // whole by the master playlist.
    if (outcome.stopped) {
        if (output) output->abandon(rungs, progress);
        if (outcome.failure) std::rethrow_exception(outcome.failure);
        throw Cancelled();
    }
    if (output) output->publish(src, rungs, audio.get(), subtitles.get());
    phases.mark("published");
    if (!options.shard) journal.remove();  // everything it held is in the finished outputs now
    note_resumed(options, resumed_chunks(rungs), journal, progress);

    // 7. The report (the data path filled in what it did).
    finish_report(run, rungs, search, report);
    return report;
}

}  // namespace ladder::engine
