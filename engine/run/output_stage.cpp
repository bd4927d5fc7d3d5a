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

void OutputStage::open(AudioTracks* audio, const SubtitleTracks* subtitles, int chunk_frames, AVRational frame_rate, const av::HdrMetadata& hdr,
                       ProgressSink& progress) {
    for (std::size_t i = 0; i < request_.rungs.size(); ++i) {
        // The MP4 first: its file is the output the report names.
        const RungOutputs& names = paths_.rungs[i];
        std::vector<std::unique_ptr<RungSink>> sinks;
        if (names.mp4) sinks.push_back(std::make_unique<Mp4RungSink>(root_, *names.mp4, frame_rate, audio, subtitles, hdr));
        const CmafRungSink* cmaf = nullptr;
        if (names.hls_folder) {
            auto sink = std::make_unique<CmafRungSink>(root_, *names.hls_folder, request_.rungs[i].name, frame_rate, hdr);
            cmaf = sink.get();
            sinks.push_back(std::move(sink));
        }
        cmaf_sinks_.push_back(cmaf);
        finalizers_.push_back(
            std::make_unique<RungFinalizer>(static_cast<int>(i), request_.rungs[i], std::move(sinks), progress));
    }
    if (writes_hls() && audio)
        for (std::size_t i = 0; i < audio->size(); ++i) {
            rendition_folders_.push_back(hls_audio_folder(audio->spec(i).id));
            audio_renditions_.push_back(std::make_unique<AudioRenditionWriter>(
                root_.folder(rendition_folders_.back()), audio->track(i), iso639_2t_language(audio->spec(i).language),
                chunk_frames, frame_rate));
        }
    if (writes_hls() && subtitles)
        for (std::size_t i = 0; i < subtitles->size(); ++i) {
            rendition_folders_.push_back(hls_subtitle_folder(subtitles->spec(i).id));
            subtitle_renditions_.push_back(std::make_unique<SubtitleRenditionWriter>(
                root_.folder(rendition_folders_.back()), *subtitles, i, chunk_frames, frame_rate));
        }
}

void OutputStage::set_video_frames(std::int64_t frames) {
    for (auto& w : audio_renditions_) w->set_video_frames(frames);
    for (auto& w : subtitle_renditions_) w->set_video_frames(frames);
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

void OutputStage::withdraw() {
    std::vector<bool> finished;
    for (std::size_t i = 0; i < paths_.rungs.size(); ++i)
        finished.push_back(i < finalizers_.size() && finalizers_[i]->completed());
    withdraw_finished_outputs(root_, paths_.rungs, finished, rendition_folders_);
}

void OutputStage::abandon(ProgressSink& progress) {
    for (std::size_t i = 0; i < finalizers_.size(); ++i)
        if (!finalizers_[i]->completed())
            progress.rung_state(static_cast<int>(i), request_.rungs[i].name, RungState::failed);
    withdraw();
}

void OutputStage::publish(const SourceInfo& src, const std::vector<RungRuntime>& rungs, const AudioTracks* audio,
                          const SubtitleTracks* subtitles) {
    if (!writes_hls()) return;
    try {
        // The DASH manifest first: the master playlist, last, says the
        // whole ladder is there.
        const auto renditions = audio_renditions();
        std::vector<const SubtitleRenditionWriter*> subtitle_writers;
        for (const auto& w : subtitle_renditions_) subtitle_writers.push_back(w.get());
        if (writes_dash())
            write_dash_manifest(root_, src, rungs, cmaf_sinks_, renditions, audio, subtitle_writers, subtitles);
        write_master_playlist(root_, src, rungs, cmaf_sinks_, renditions, audio, subtitle_writers, subtitles);
    } catch (...) {
        try {
            root_.remove(kDashManifest);
        } catch (const std::exception&) {
            // the run's own error is the one to report
        }
        withdraw();  // e.g. the disk filled up on the last file
        throw;
    }
}

void OutputStage::fill_report(JobReport& report) const {
    for (const auto& f : finalizers_) {
        report.rungs.push_back(f->report());
        auto records = f->chunk_records();
        report.chunks.insert(report.chunks.end(), records.begin(), records.end());
    }
}

}  // namespace ladder::engine
