#pragma once
// A subtitle rendition's files: segmented WebVTT cut at the video's chunk
// boundaries (frame k*N), each segment with X-TIMESTAMP-MAP, its media
// playlist, and the whole track as one WebVTT file for the DASH manifest.
// It starts once the video's length is known and the cues are read.
#include <cstdint>
#include <filesystem>
#include <stop_token>
#include <vector>

#include "engine/base/shared_value.hpp"
#include "engine/source/subtitle_tracks.hpp"
#include "mux/output_folder.hpp"

namespace ladder::engine {

class SubtitleRenditionWriter {
public:
    static constexpr const char* whole_track_name = "subtitles.vtt";

    // folder: OUTDIR/subtitles/<id>/, held open. video_frames: the video's
    // length, which run() waits for.
    SubtitleRenditionWriter(mux::OutputFolder folder, const SubtitleTracks& tracks, std::size_t track,
                            int chunk_frames, AVRational frame_rate, const SharedValue<std::int64_t>& video_frames);

    void run(std::stop_token stop);

    const std::filesystem::path& dir() const { return folder_.path(); }
    std::size_t track() const { return track_; }
    double duration_seconds() const { return duration_seconds_; }

private:
    mux::OutputFolder folder_;
    const SubtitleTracks& tracks_;
    std::size_t track_;
    int chunk_frames_;
    AVRational frame_rate_;
    const SharedValue<std::int64_t>& video_frames_;
    double duration_seconds_ = 0;
};

}  // namespace ladder::engine
