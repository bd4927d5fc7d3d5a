#pragma once
// Room engine/media/: the source's audio and subtitle tracks: which become renditions,
// their names and languages, the AAC encoded once, where audio segments cut.
// May include: base.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// Every audio rendition of a run, each an AudioTrack (decoded and encoded
// once), and the one place that routes the source's audio packets to them:
// a stream with a stereo and a 5.1 rendition feeds both.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/media/audio_selection.hpp"
#include "engine/media/audio_track.hpp"

struct AVFormatContext;

namespace ladder::engine {

class AudioTracks {
public:
    // video_start: the first video timestamp, in AV_TIME_BASE units.
    // Throws av::AvError when a stream's decoder or the AAC encoder cannot open.
    AudioTracks(const AVFormatContext* input, std::vector<AudioRenditionSpec> renditions, std::int64_t video_start);
    AudioTracks(const AudioTracks&) = delete;
    AudioTracks& operator=(const AudioTracks&) = delete;

    std::size_t size() const { return tracks_.size(); }
    bool empty() const { return tracks_.empty(); }
    AudioTrack& track(std::size_t i) { return *tracks_.at(i); }
    const AudioTrack& track(std::size_t i) const { return *tracks_.at(i); }
    const AudioRenditionSpec& spec(std::size_t i) const { return specs_.at(i); }

    // Whether packets of this container stream feed a rendition.
    bool reads(int stream_index) const;
    // Producer side: a packet of any stream (others are ignored).
    void feed(const AVPacket* pkt);
    // video_frames at frame_rate: where the video ends (negative: unknown).
    void finish(std::int64_t video_frames, AVRational frame_rate);
    void abandon();

    std::int64_t packet_count() const;

private:
    std::vector<AudioRenditionSpec> specs_;
    std::vector<std::unique_ptr<AudioTrack>> tracks_;  // parallel to specs_
};

}  // namespace ladder::engine
