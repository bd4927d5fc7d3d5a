#include "engine/run/stitch_job.hpp"

#include "av/compat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "engine/run/audio_file.hpp"
#include "engine/output/audio_rendition_writer.hpp"
#include "engine/media/audio_tracks.hpp"
#include "engine/output/chunk_journal.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/stage_threads.hpp"
#include "engine/run/job_media.hpp"
#include "engine/rung/rung.hpp"
#include "engine/run/output_stage.hpp"
#include "engine/run/plan_job.hpp"
#include "engine/source/source_info.hpp"

namespace ladder::engine {

namespace {

// "3, 7-9, 12": chunk numbers as a person reads them.
std::string number_ranges(const std::vector<int>& sorted) {
    std::string out;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
        out += fmt::format("{}{}", out.empty() ? "" : ", ",
                           j == i ? fmt::format("{}", sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[j]));
        i = j + 1;
    }
    return out;
}

// Every chunk of every rung, checked; returns each rung's contract holder.
std::vector<std::unique_ptr<RungCodecInvariant>> check_chunks(const JobPlan& plan, const ChunkJournal& journal,
                                                              const std::filesystem::path& workdir,
                                                              std::stop_token stop) {
    std::vector<std::unique_ptr<RungCodecInvariant>> invariants;
    std::vector<std::string> problems;
    const auto chunks = plan.chunks();
    for (std::size_t r = 0; r < plan.ladder.rungs.size(); ++r) {
        const std::string& name = plan.ladder.rungs[r].name;
        auto invariant = std::make_unique<RungCodecInvariant>(plan.splice_check);
        std::vector<int> missing, unreadable;
        for (const auto& c : chunks) {
            if (stop.stop_requested()) throw Cancelled();
            const std::string key = plan.journal_key(r, c.index);
            auto chunk = journal.load(static_cast<int>(r), key, c.index);
            if (!chunk) {
                (journal.has_file(key, c.index) ? unreadable : missing).push_back(c.index);
            } else if (chunk->first_frame != c.first_frame || chunk->frame_count != c.frames) {
                problems.push_back(fmt::format("rung {} chunk {} has frames {}+{}, the plan says {}+{}", name, c.index,
                                               chunk->first_frame, chunk->frame_count, c.first_frame, c.frames));
            } else if (auto verdict = invariant->check(*chunk); !verdict.accepted) {
                problems.push_back(fmt::format("rung {} chunk {} does not splice with the rung's first chunk ({} "
                                               "differ: made by another encoder or version?)",
                                               name, c.index, fmt::join(verdict.differences, ", ")));
            }
        }
        if (!missing.empty())
            problems.push_back(fmt::format("rung {}: chunk{} {} missing", name, missing.size() == 1 ? "" : "s",
                                           number_ranges(missing)));
        if (!unreadable.empty())
            problems.push_back(fmt::format("rung {}: chunk{} {} damaged or of another plan", name,
                                           unreadable.size() == 1 ? "" : "s", number_ranges(unreadable)));
        invariants.push_back(std::move(invariant));
    }
    if (!problems.empty())
        throw RunError(fmt::format("{} is not ready to stitch ({} chunks per rung): {}; encode them (again) with "
                                   "ladder encode --plan {} --shard I/N (the shard holding them; chunks already "
                                   "there are kept)",
                                   workdir.string(), chunks.size(), fmt::join(problems, "; "),
                                   (workdir / kPlanFileName).string()));
    return invariants;
}

// The source's audio renditions, encoded once: demuxed alone, no video
// decoded. input holds the audio: the source, or the plan's --audio-file.
std::unique_ptr<AudioTracks> encode_audio(av::InputFile& input, std::int64_t video_start, const JobPlan& plan,
                                          const AudioSelection& selection, std::stop_token stop) {
    AVFormatContext* fmt_ctx = input.get();
    auto audio = std::make_unique<AudioTracks>(fmt_ctx, selection.renditions, video_start);
    for (unsigned i = 0; i < fmt_ctx->nb_streams; ++i)
        if (!audio->reads(static_cast<int>(i))) fmt_ctx->streams[i]->discard = AVDISCARD_ALL;
    av::PacketPtr pkt = av::make_packet();
    while (read_or_cancel(input, pkt.get())) {
        if (stop.stop_requested()) throw Cancelled();
        audio->feed(pkt.get());
        av_packet_unref(pkt.get());
    }
    audio->finish(plan.frames, plan.frame_rate);
    return audio;
}

// One rung's chunks, read from the journal as its writer takes them (a few
// ahead), delivered in order through the rung's one way in; returns once
// the rung is written. The reader and the writer run as the encode's
// stages do (StageThreads: the first failure stops both, both joined).
void stitch_rung(Rung& rung, const JobPlan& plan, const ChunkJournal& journal, std::stop_token stop) {
    const auto chunks = plan.chunks();
    RungFinalizer& writer = *rung.writer();
    {
        StageThreads stages(stop);
        stages.start(fmt::format("rung {} writer", rung.name()), [&writer](std::stop_token t) { writer.run(t); });
        stages.start(fmt::format("rung {} reader", rung.name()), [&](std::stop_token t) {
            for (const auto& c : chunks) {
                if (!writer.wait_for_room(4, t)) throw Cancelled();
                auto chunk =
                    journal.load(rung.index(), plan.journal_key(static_cast<std::size_t>(rung.index()), c.index), c.index);
                if (!chunk)
                    throw RunError(fmt::format("rung {} chunk {} disappeared from {} while stitching", rung.name(),
                                               c.index, journal.dir().string()));
                // The plan's last chunk ends the rung, as the scaler marks it in an encode.
                if (&c == &chunks.back()) chunk->ends_rung = RungEnd{c.index + 1, plan.frames};
                auto checked = rung.check(std::move(*chunk));
                if (!checked.accepted)
                    throw RunError(fmt::format("rung {} chunk {} in {} changed while stitching ({} differ)",
                                               rung.name(), c.index, journal.dir().string(),
                                               fmt::join(checked.differences, ", ")));
                rung.deliver(std::move(*checked.accepted), ChunkOrigin::journal);
            }
        });
        stages.join();
        if (auto failure = stages.failure()) std::rethrow_exception(failure);
        if (stages.stopping()) throw Cancelled();
    }
}

// Each rung with the contract its journaled chunks set and its writer;
// each rung is pending.
Rungs stitched_rungs(const JobPlan& plan, OutputStage& output,
                     std::vector<std::unique_ptr<RungCodecInvariant>> invariants, ProgressSink& progress) {
    Rungs rungs;
    for (std::size_t i = 0; i < plan.ladder.rungs.size(); ++i) {
        RungParts parts;
        parts.index = static_cast<int>(i);
        parts.spec = plan.ladder.rungs[i];
        parts.invariant = std::move(invariants[i]);
        parts.writer = output.make_writer(i, progress);
        parts.chunk_frames = plan.chunk_frames;
        rungs.push_back(std::make_unique<Rung>(std::move(parts), progress));
        progress.rung_state(static_cast<int>(i), plan.ladder.rungs[i].name, RungState::pending);
    }
    return rungs;
}

// The plan's rate control; a budget plan's chunk CRFs, each rung's CRF the
// lowest of them (as a run's report gives the rung's base).
void report_plan_rate_control(const JobPlan& plan, JobReport& report) {
    report.rate_control = plan.budget ? "budget" : "vbr";
    if (!plan.budget) return;
    for (std::size_t i = 0; i < report.rungs.size() && i < plan.chunk_crf.size(); ++i) {
        const auto& crfs = plan.chunk_crf[i];
        if (crfs.empty()) continue;
        report.rungs[i].chunk_crf = crfs;
        report.rungs[i].crf = *std::min_element(crfs.begin(), crfs.end());
    }
}

}  // namespace

JobReport stitch_job(const StitchOptions& options, ProgressSink& progress, std::stop_token stop) {
    const auto started = std::chrono::steady_clock::now();
    const JobPlan plan = read_plan(options.workdir / kPlanFileName);
    const ChunkJournal journal(options.workdir, plan.fingerprint(), JournalMode::read);
    auto invariants = check_chunks(plan, journal, options.workdir, stop);

    // The source: for its audio and subtitles, and to be sure it is the planned one.
    std::unique_ptr<av::InputFile> input;
    std::unique_ptr<av::InputFile> audio_input;  // the plan's --audio-file
    SourceInfo src;
    if (plan.audio.enabled || plan.subtitles.enabled) {
        input = open_source(plan.input, plan.input_frame_rate(), stop);
        src = describe_source(*input);
        repair_timeline(input, src);  // the audio lines up with the video as the shards read it
        check_source_matches_plan(plan, src);
        read_source_hdr(src);  // for the containers' mdcv and clli boxes
        if (plan.audio.enabled && !plan.audio_file.empty()) audio_input = open_audio_file(plan.audio_file, src, stop);
    } else {
        src.path = plan.input.string();
        src.frame_rate = plan.frame_rate;
    }

    AudioSelection selection;
    if (plan.audio.enabled) selection = choose_audio(plan.audio, src, progress);
    SubtitleSelection subtitle_selection;
    if (plan.subtitles.enabled) subtitle_selection = choose_subtitles(plan.subtitles, src, progress);
    OutputStage output(OutputRequest{options.outdir, plan.ladder.rungs, options.formats,
                                     rendition_ids(selection), rendition_ids(subtitle_selection), options.overwrite,
                                     {plan.input, plan.audio_file}, options.other_outputs});
    std::unique_ptr<AudioTracks> audio;
    if (!selection.renditions.empty())
        audio = encode_audio(audio_input ? *audio_input : *input, audio_time_zero(*input, audio_input.get(), src), plan,
                             selection, stop);
    std::unique_ptr<SubtitleTracks> subtitles;
    if (!subtitle_selection.renditions.empty()) {
        subtitles = open_subtitles(subtitle_selection, input->get(), src);
        subtitles->read(stop);
    }
    output.open(audio.get(), subtitles.get(), plan.chunk_frames, plan.frame_rate, src.hdr);
    Rungs rungs = stitched_rungs(plan, output, std::move(invariants), progress);

    try {
        for (auto& rung : rungs) stitch_rung(*rung, plan, journal, stop);
        output.run_rendition_writers(stop);
        output.publish(src, rungs, audio.get(), subtitles.get());
    } catch (...) {
        output.abandon(rungs, progress);
        throw;
    }

    JobReport report;
    report.input = plan.input.string();
    report.frames_normalized = plan.frames;
    report.frame_rate = av_q2d(plan.frame_rate);
    report.audio_packets = audio ? audio->packet_count() : 0;
    report.resumed_chunks = static_cast<int>(plan.chunks().size() * rungs.size());
    OutputStage::fill_report(rungs, report);
    report_plan_rate_control(plan, report);
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

}  // namespace ladder::engine
