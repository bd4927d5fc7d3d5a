#pragma once
// A run's audio and subtitle renditions: which of the source's tracks the
// outputs get (with the notes and warnings that say what was left out),
// and their readers. Shared by `ladder encode` and `ladder stitch`.
#include <memory>
#include <string>
#include <vector>

#include "engine/media/audio_tracks.hpp"
#include "engine/run/preflight.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/source/subtitle_tracks.hpp"

namespace ladder::engine {

// InputError when --audio names languages the source lacks.
AudioSelection choose_audio(const AudioChoice& choice, const SourceInfo& src, ProgressSink& progress);
// InputError when --subtitles names languages the source lacks.
SubtitleSelection choose_subtitles(const SubtitleChoice& choice, const SourceInfo& src, ProgressSink& progress);

// The first video timestamp, AV_TIME_BASE units: output time 0.
std::int64_t video_start_of(const AVFormatContext* input, const SourceInfo& src);

// The selected renditions' readers; null when there are none. InputError
// when a stream's decoder cannot open.
// The audio is read from source.audio_input (--audio-file) when there is one.
std::unique_ptr<AudioTracks> open_audio(const AudioSelection& selection, const CheckedSource& source);
std::unique_ptr<SubtitleTracks> open_subtitles(const SubtitleSelection& selection, const AVFormatContext* input,
                                               const SourceInfo& src);

std::vector<std::string> rendition_ids(const AudioSelection& selection);
std::vector<std::string> rendition_ids(const SubtitleSelection& selection);

}  // namespace ladder::engine
