#pragma once
// The HLS audio rendition: the shared AAC packets cut into CMAF segments on
// the AAC frame boundaries nearest the video's chunk boundaries (frame k*N
// of every rung), so audio and video segments line up, and ending with the
// video's last frame (engine/media/audio_segment_plan.hpp); the encoder's priming
// before 0 is hidden by init.mp4's edit list. It starts once the source is
// fully read, when the last boundary is known; the audio is all in memory
// by then.
#include <cstdint>
#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/media/audio_track.hpp"
#include "engine/base/shared_value.hpp"
#include "mux/cmaf_track_writer.hpp"

namespace ladder::engine {

class AudioRenditionWriter {
public:
    // folder: OUTDIR/audio/<id>/, held open. language: ISO 639-2/T, for
    // the init segment's mdhd. video_frames: the video's length, which
    // run() waits for (its writers tell it when a rung's last chunk comes).
    AudioRenditionWriter(mux::OutputFolder folder, AudioTrack& audio, std::string language, int chunk_frames,
                         AVRational frame_rate, const SharedValue<std::int64_t>& video_frames);

    void run(std::stop_token stop);

    const std::vector<mux::CmafSegment>& segments() const { return segments_; }
    const std::filesystem::path& dir() const { return folder_.path(); }

private:
    // The packets (the output's, in order) cut at the video's segment ends
    // (cuts, engine/media/audio_segment_plan.hpp) into segments.
    void write_segments(mux::CmafTrackWriter& writer, const std::vector<av::PacketPtr>& packets,
                        const std::vector<std::int64_t>& cuts);

    mux::OutputFolder folder_;
    AudioTrack& audio_;
    std::string language_;
    int chunk_frames_;
    AVRational frame_rate_;
    const SharedValue<std::int64_t>& video_frames_;
    std::vector<mux::CmafSegment> segments_;
};

}  // namespace ladder::engine
