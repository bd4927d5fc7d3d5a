#include "engine/stitch_job.hpp"
#include "av/compat.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "engine/audio_rendition_writer.hpp"
#include "engine/audio_track.hpp"
#include "engine/chunk_journal.hpp"
#include "engine/errors.hpp"
#include "engine/master_playlist.hpp"
#include "engine/output_paths.hpp"
#include "engine/plan_job.hpp"
#include "engine/rung_runtime.hpp"

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
            auto chunk = journal.load(static_cast<int>(r), name, c.index);
            if (!chunk) {
                std::error_code ec;
                (std::filesystem::exists(journal.chunk_file(name, c.index), ec) ? unreadable : missing)
                    .push_back(c.index);
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

// The source's audio, encoded once: demuxed alone, no video decoded.
std::unique_ptr<AudioTrack> encode_audio(av::InputFile& input, const SourceInfo& src, const JobPlan& plan,
                                         std::stop_token stop) {
    AVFormatContext* fmt_ctx = input.get();
    const AVStream* vs = fmt_ctx->streams[src.video_stream];
    const std::int64_t video_start =
        vs->start_time == AV_NOPTS_VALUE ? 0 : av_rescale_q(vs->start_time, vs->time_base, av::kTimeBaseQ);
    auto audio = std::make_unique<AudioTrack>(fmt_ctx->streams[src.audio_stream], video_start);
    for (unsigned i = 0; i < fmt_ctx->nb_streams; ++i)
        if (static_cast<int>(i) != src.audio_stream) fmt_ctx->streams[i]->discard = AVDISCARD_ALL;
    av::PacketPtr pkt = av::make_packet();
    while (input.read(pkt.get())) {
        if (stop.stop_requested()) throw Cancelled();
        if (pkt->stream_index == src.audio_stream) audio->feed(pkt.get());
        av_packet_unref(pkt.get());
    }
    audio->finish(av_rescale_q(plan.frames, av_inv_q(plan.frame_rate), audio->time_base()));
    return audio;
}

}  // namespace

JobReport stitch_job(const StitchOptions& options, ProgressSink& progress, std::stop_token stop) {
    const auto started = std::chrono::steady_clock::now();
    const JobPlan plan = read_plan(options.workdir / kPlanFileName);
    const ChunkJournal journal(options.workdir, plan.fingerprint(), JournalMode::read);
    auto invariants = check_chunks(plan, journal, options.workdir, stop);

    // The source: for its audio, and to be sure it is the planned one.
    std::unique_ptr<av::InputFile> input;
    SourceInfo src;
    if (plan.audio) {
        input = open_source(plan.input);
        src = describe_source(*input);
        check_source_matches_plan(plan, src);
    } else {
        src.path = plan.input.string();
        src.frame_rate = plan.frame_rate;
    }

    const bool write_mp4 = options.format != OutputFormat::hls;
    const bool write_hls = options.format != OutputFormat::mp4;
    std::vector<std::string> rung_names;
    for (const auto& r : plan.ladder.rungs) rung_names.push_back(r.name);
    const LadderOutputs outputs = ladder_outputs(options.outdir, rung_names, write_mp4, write_hls, plan.audio);
    const std::vector<RungOutputs>& rung_outputs = outputs.rungs;
    prepare_output_dir(options.outdir, outputs.finals, options.overwrite);
    if (write_hls) std::filesystem::remove(master_playlist_path(options.outdir));

    std::unique_ptr<AudioTrack> audio;
    if (plan.audio) audio = encode_audio(*input, src, plan, stop);
    std::unique_ptr<AudioRenditionWriter> audio_rendition;
    if (write_hls && audio)
        audio_rendition = std::make_unique<AudioRenditionWriter>(hls_audio_dir(options.outdir, kAudioRendition),
                                                                 *audio, plan.chunk_frames, plan.frame_rate);

    std::vector<RungRuntime> rungs;
    for (std::size_t i = 0; i < plan.ladder.rungs.size(); ++i) {
        RungRuntime rt;
        rt.rung = plan.ladder.rungs[i];
        rt.invariant = std::move(invariants[i]);
        rt.finalizer = std::make_unique<RungFinalizer>(static_cast<int>(i), rt.rung, rung_outputs[i], plan.frame_rate,
                                                       write_mp4 ? audio.get() : nullptr, progress);
        rungs.push_back(std::move(rt));
        progress.rung_state(static_cast<int>(i), plan.ladder.rungs[i].name, RungState::pending);
    }

    auto withdraw = [&] {
        std::vector<bool> finished;
        for (const auto& rt : rungs) finished.push_back(rt.finalizer->completed());
        withdraw_finished_outputs(rung_outputs, finished,
                                  audio_rendition ? std::optional(audio_rendition->dir()) : std::nullopt);
    };
    const auto chunks = plan.chunks();
    try {
        for (std::size_t i = 0; i < rungs.size(); ++i) {
            RungFinalizer& fin = *rungs[i].finalizer;
            std::exception_ptr failed;
            std::stop_source writer_stop;
            std::stop_callback forward(stop, [&] { writer_stop.request_stop(); });
            std::thread writer([&] {
                try {
                    fin.run(writer_stop.get_token());
                } catch (...) {
                    failed = std::current_exception();
                    writer_stop.request_stop();
                }
            });
            // Leaving early (an error here): the writer stops, then is joined.
            struct StopAndJoin {
                std::stop_source& stop;
                std::thread& thread;
                ~StopAndJoin() {
                    if (!thread.joinable()) return;
                    stop.request_stop();
                    thread.join();
                }
            } stop_and_join{writer_stop, writer};
            fin.set_total(static_cast<int>(chunks.size()), plan.frames);
            for (const auto& c : chunks) {
                // Chunks are read as the writer takes them, a few ahead.
                while (fin.waiting() >= 4 && !writer_stop.stop_requested())
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                if (writer_stop.stop_requested()) break;
                auto chunk = journal.load(static_cast<int>(i), rungs[i].rung.name, c.index);
                if (!chunk)
                    throw RunError(fmt::format("rung {} chunk {} disappeared from {} while stitching",
                                               rungs[i].rung.name, c.index, journal.dir().string()));
                ChunkDone done;
                done.rung = static_cast<int>(i);
                done.rung_name = rungs[i].rung.name;
                done.chunk = c.index;
                done.frames = chunk->frame_count;
                done.bytes = chunk->bytes;
                done.slot = chunk->slot_label;
                progress.chunk_done(done);
                fin.deliver(std::move(*chunk));
            }
            writer.join();
            if (failed) std::rethrow_exception(failed);
            if (stop.stop_requested()) throw Cancelled();
        }
        if (audio_rendition) {
            audio_rendition->set_video_frames(plan.frames);
            audio_rendition->run(stop);
        }
        if (write_hls) write_master_playlist(options.outdir, src, rungs, audio_rendition.get(), audio.get());
    } catch (...) {
        withdraw();
        throw;
    }

    JobReport report;
    report.input = plan.input.string();
    report.frames_normalized = plan.frames;
    report.frame_rate = av_q2d(plan.frame_rate);
    report.audio_packets = audio ? audio->packet_count() : 0;
    report.resumed_chunks = static_cast<int>(chunks.size() * rungs.size());
    for (auto& r : rungs) {
        report.rungs.push_back(r.finalizer->report());
        auto recs = r.finalizer->chunk_records();
        report.chunks.insert(report.chunks.end(), recs.begin(), recs.end());
    }
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

}  // namespace ladder::engine
