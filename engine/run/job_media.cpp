#include "engine/run/job_media.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "av/av_error.hpp"
#include "av/compat.hpp"
#include "engine/run/audio_file.hpp"
#include "engine/base/errors.hpp"

namespace ladder::engine {

AudioSelection choose_audio(const AudioChoice& choice, const SourceInfo& src, ProgressSink& progress) {
    AudioSelection selection = select_audio(src.audio_tracks, choice, src.path);
    for (const auto& note : selection.notes) progress.note(NoteLevel::info, note);
    if (choice.enabled && selection.renditions.empty())
        progress.note(NoteLevel::info, fmt::format("input {} has no usable audio stream: outputs are video only",
                                                    src.path));
    if (selection.renditions.size() > 1) {
        std::vector<std::string> listed;
        for (const auto& r : selection.renditions)
            listed.push_back(fmt::format("{} (track {}, {}, {} ch{})", r.id, r.ordinal, r.language, r.channels,
                                         r.is_default ? ", default" : ""));
        progress.note(NoteLevel::info, fmt::format("input {}: {} audio renditions: {}", src.path,
                                                    selection.renditions.size(), fmt::join(listed, ", ")));
    }
    return selection;
}

SubtitleSelection choose_subtitles(const SubtitleChoice& choice, const SourceInfo& src, ProgressSink& progress) {
    SubtitleSelection selection = select_subtitles(src.subtitle_tracks, choice, src.path);
    for (const auto& w : selection.warnings) progress.note(NoteLevel::warning, w);
    for (const auto& note : selection.notes) progress.note(NoteLevel::info, note);
    if (!selection.renditions.empty()) {
        std::vector<std::string> listed;
        for (const auto& r : selection.renditions)
            listed.push_back(fmt::format("{} (track {}, {}{}{})", r.id, r.ordinal, r.language,
                                         r.is_default ? ", default" : "", r.is_forced ? ", forced" : ""));
        progress.note(NoteLevel::info, fmt::format("input {}: {} subtitle rendition(s) as WebVTT: {}", src.path,
                                                    selection.renditions.size(), fmt::join(listed, ", ")));
    }
    return selection;
}

std::int64_t video_start_of(const AVFormatContext* input, const SourceInfo& src) {
    const AVStream* vs = input->streams[src.video_stream];
    return vs->start_time == AV_NOPTS_VALUE ? 0 : av_rescale_q(vs->start_time, vs->time_base, av::kTimeBaseQ);
}

std::unique_ptr<AudioTracks> open_audio(const AudioSelection& selection, const CheckedSource& source) {
    if (selection.renditions.empty()) return nullptr;
    const SourceInfo& src = source.info;
    const av::InputFile& audio_input = source.audio_input ? *source.audio_input : *source.input;
    try {
        return std::make_unique<AudioTracks>(audio_input.get(), selection.renditions,
                                             audio_time_zero(*source.input, source.audio_input.get(), src));
    } catch (const av::AvError& e) {
        throw InputError(fmt::format("input {}: cannot decode its audio ({}): pass --audio none to skip audio",
                                     src.audio_path.empty() ? src.path : src.audio_path, e.what()));
    }
}

std::unique_ptr<SubtitleTracks> open_subtitles(const SubtitleSelection& selection, const AVFormatContext* input,
                                               const SourceInfo& src) {
    if (selection.renditions.empty()) return nullptr;
    try {
        return std::make_unique<SubtitleTracks>(src.opened_as, selection.renditions, video_start_of(input, src));
    } catch (const av::AvError& e) {
        throw InputError(fmt::format("input {}: cannot decode its subtitles ({}): pass --subtitles none to skip them",
                                     src.path, e.what()));
    }
}

std::vector<std::string> rendition_ids(const AudioSelection& selection) {
    std::vector<std::string> ids;
    for (const auto& r : selection.renditions) ids.push_back(r.id);
    return ids;
}

std::vector<std::string> rendition_ids(const SubtitleSelection& selection) {
    std::vector<std::string> ids;
    for (const auto& r : selection.renditions) ids.push_back(r.id);
    return ids;
}

}  // namespace ladder::engine
