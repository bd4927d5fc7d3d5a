#include "engine/run/output_stage.hpp"

#include <optional>

#include <fmt/format.h>

#include "engine/run/dash_manifest_writer.hpp"
#include "engine/media/language_tag.hpp"
#include "engine/run/master_playlist.hpp"

namespace ladder::engine {

namespace {

LadderOutputs paths_for(const OutputRequest& request) {
    std::vector<std::string> names;
    for (const auto& r : request.rungs) names.push_back(r.name);
    const bool hls = request.formats.cmaf_segments();
    return ladder_outputs(names, request.formats,
                          hls ? request.audio : std::vector<std::string>{},
                          hls ? request.subtitles : std::vector<std::string>{});
}

// The inputs first: nothing is created before they are known to be safe.
mux::OutputFolder checked_root(const OutputRequest& request, const LadderOutputs& paths) {
    refuse_outputs_over_inputs(request.outdir, paths.top_names, request.inputs, request.other_outputs);
    return prepare_output_dir(request.outdir, paths, request.overwrite, request.other_outputs);
}

}  // namespace

OutputStage::OutputStage(OutputRequest request)
    : request_(std::move(request)), paths_(paths_for(request_)), root_(checked_root(request_, paths_)) {
    // An old master playlist would point at a mix of old and new segments
    // while this run is under way: it goes first and comes back last.
    if (writes_hls()) root_.remove(kMasterPlaylist);
    if (writes_dash()) root_.remove(kDashManifest);
}

std::unique_ptr<RungFinalizer> OutputStage::make_writer(std::size_t rung, ProgressSink& progress) {
    // The MP4 first: its file is the output the report names.
    const RungOutputs& names = paths_.rungs.at(rung);
    std::vector<std::unique_ptr<RungSink>> sinks;
    if (names.mp4) sinks.push_back(std::make_unique<Mp4RungSink>(root_, *names.mp4, frame_rate_, audio_, subtitles_, hdr_));
    if (names.hls_folder)
        sinks.push_back(
            std::make_unique<CmafRungSink>(root_, *names.hls_folder, request_.rungs[rung].name, frame_rate_, hdr_));
    return std::make_unique<RungFinalizer>(static_cast<int>(rung), request_.rungs[rung], std::move(sinks), progress,
                                           &video_frames_);
}

void OutputStage::open(AudioTracks* audio, const SubtitleTracks* subtitles, int chunk_frames, AVRational frame_rate,
                       const av::HdrMetadata& hdr) {
    audio_ = audio;
    subtitles_ = subtitles;
    frame_rate_ = frame_rate;
    hdr_ = hdr;
    if (writes_hls() && audio)
        for (std::size_t i = 0; i < audio->size(); ++i) {
            rendition_folders_.push_back(hls_audio_folder(audio->spec(i).id));
            audio_renditions_.push_back(std::make_unique<AudioRenditionWriter>(
                root_.folder(rendition_folders_.back()), audio->track(i), iso639_2t_language(audio->spec(i).language),
                chunk_frames, frame_rate, video_frames_));
        }
    if (writes_hls() && subtitles)
        for (std::size_t i = 0; i < subtitles->size(); ++i) {
            rendition_folders_.push_back(hls_subtitle_folder(subtitles->spec(i).id));
            subtitle_renditions_.push_back(std::make_unique<SubtitleRenditionWriter>(
                root_.folder(rendition_folders_.back()), *subtitles, i, chunk_frames, frame_rate, video_frames_));
        }
}

void OutputStage::start_rendition_writers(StageThreads& stages) {
    for (auto& w : audio_renditions_)
        stages.start(fmt::format("audio rendition {}", w->dir().filename().string()),
                     [w = w.get()](std::stop_token t) { w->run(t); });
    for (auto& w : subtitle_renditions_)
        stages.start(fmt::format("subtitle rendition {}", w->dir().filename().string()),
                     [w = w.get()](std::stop_token t) { w->run(t); });
}

void OutputStage::run_rendition_writers(std::stop_token stop) {
    for (auto& w : audio_renditions_) w->run(stop);
    for (auto& w : subtitle_renditions_) w->run(stop);
}

std::vector<AudioRenditionWriter*> OutputStage::audio_renditions() const {
    std::vector<AudioRenditionWriter*> out;
    for (const auto& w : audio_renditions_) out.push_back(w.get());
    return out;
}

void OutputStage::withdraw(const Rungs& rungs) {
    std::vector<bool> finished(paths_.rungs.size(), false);
    for (const auto& r : rungs)
        if (r->writer() && static_cast<std::size_t>(r->index()) < finished.size())
            finished[static_cast<std::size_t>(r->index())] = r->writer()->completed();
    withdraw_finished_outputs(root_, paths_.rungs, finished, rendition_folders_);
}

void OutputStage::abandon(const Rungs& rungs, ProgressSink& progress) {
    for (const auto& r : rungs)
        if (r->writer() && !r->writer()->completed()) progress.rung_state(r->index(), r->name(), RungState::failed);
    withdraw(rungs);
}

void OutputStage::publish(const SourceInfo& src, const Rungs& rungs, const AudioTracks* audio,
                          const SubtitleTracks* subtitles) {
    if (!writes_hls()) return;
    try {
        // The DASH manifest first: the master playlist, last, says the
        // whole ladder is there.
        const auto renditions = audio_renditions();
        std::vector<const SubtitleRenditionWriter*> subtitle_writers;
        for (const auto& w : subtitle_renditions_) subtitle_writers.push_back(w.get());
        if (writes_dash())
            write_dash_manifest(root_, src, rungs, renditions, audio, subtitle_writers, subtitles);
        write_master_playlist(root_, src, rungs, renditions, audio, subtitle_writers, subtitles);
    } catch (...) {
        try {
            root_.remove(kDashManifest);
        } catch (const std::exception&) {
            // the run's own error is the one to report
        }
        withdraw(rungs);  // e.g. the disk filled up on the last file
        throw;
    }
}

void OutputStage::fill_report(const Rungs& rungs, JobReport& report) {
    for (const auto& r : rungs) {
        if (!r->writer()) continue;
        report.rungs.push_back(r->writer()->report());
        auto records = r->writer()->chunk_records();
        report.chunks.insert(report.chunks.end(), records.begin(), records.end());
    }
}

}  // namespace ladder::engine
