#pragma once
// The master playlist ladder writes itself (FFmpeg's hls muxer writes no AV1
// CODECS): one variant per rung with measured BANDWIDTH/AVERAGE-BANDWIDTH
// (audio included), CODECS from the sequence header, RESOLUTION,
// FRAME-RATE, VIDEO-RANGE, the audio group and CLOSED-CAPTIONS=NONE (the
// AV1 carries no captions); EXT-X-MEDIA for every audio
// rendition; an I-frame stream per rung. Audio comes in groups as Apple's
// HLS authoring specification asks: "audio-aac" holds every track's stereo
// rendition; when a track has 5.1, "audio-aac-51" holds each track once,
// its 5.1 rendition where it has one, and every rung is offered once per
// group (BANDWIDTH counts the group's largest rendition).
#include <optional>
#include <string>
#include <vector>

#include "mux/hls_bandwidth.hpp"
#include "mux/hls_playlist.hpp"

namespace ladder::mux {

struct VideoRenditionSummary {
    std::string uri;         // "720p/index.m3u8"
    std::string iframe_uri;  // "720p/iframes.m3u8"
    int width = 0;
    int height = 0;
    double frame_rate = 0;
    std::string codecs;       // av01....
    std::string video_range;  // SDR, PQ or HLG
    std::vector<SegmentSize> segments;
    std::vector<SegmentSize> iframes;
};

struct AudioRenditionSummary {
    int track = 0;  // the source track it is made from: a track's stereo and 5.1 renditions share it
    std::string name;
    std::string language;  // BCP 47 / ISO 639, "und" when unknown
    std::string uri;       // "audio/aac/index.m3u8"
    int channels = 2;
    bool is_default = false;  // from the source's default track
    std::string codecs = "mp4a.40.2";
    std::vector<SegmentSize> segments;
};

// VIDEO-RANGE for an AV1/ISO 23091-2 transfer characteristic.
std::string video_range_for_transfer(int transfer_characteristics);

// A WebVTT rendition; every variant names the one subtitle group.
struct SubtitleRenditionSummary {
    std::string name;
    std::string language;
    std::string uri;  // "subtitles/eng/index.m3u8"
    bool is_default = false;
    bool is_forced = false;
};

constexpr const char* kSubtitleGroup = "subs";
constexpr const char* kStereoAudioGroup = "audio-aac";
constexpr const char* kSurroundAudioGroup = "audio-aac-51";

// audio: in the order they are listed (the default track's first); empty
// for a ladder without audio.
MasterPlaylist build_master_playlist(const std::vector<VideoRenditionSummary>& video,
                                     const std::vector<AudioRenditionSummary>& audio,
                                     const std::vector<SubtitleRenditionSummary>& subtitles = {});

}  // namespace ladder::mux
