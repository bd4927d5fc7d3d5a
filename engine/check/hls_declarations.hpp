#pragma once
// What an HLS master playlist declares against what its files measure:
// CODECS and VIDEO-RANGE against the init segment's av1C, BANDWIDTH and
// AVERAGE-BANDWIDTH against the segments' sizes, and every variant's and
// audio rendition's segments against the first variant's. Each check
// returns its problem lines (without the file's name); `ladder validate`
// (engine/check/ladder_validator.cpp) reads the files and says where.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/check/init_segment_codecs.hpp"
#include "engine/check/segment_timing.hpp"
#include "mux/hls_bandwidth.hpp"
#include "mux/hls_playlist.hpp"

namespace ladder::engine {

// EXTINF is written with 6 decimals; a tampered value is off by far more.
inline constexpr double kExtinfTolerance = 0.002;

// What a video init segment's av1C says: what CODECS and VIDEO-RANGE must say.
struct InitFacts {
    std::string codecs;
    std::optional<ColourDescription> colour;
};

// What a media playlist's checks measured.
struct TrackCheck {
    std::vector<double> boundaries;  // cumulative EXTINF
    std::vector<mux::SegmentSize> sizes;
    int target_duration = 0;
    InitFacts init;  // video only
    // When the first and the last segment play (when both could be read).
    std::optional<SegmentTiming> first, last;
    bool ok = false;
};

// CODECS="av01...,mp4a.40.2": the entry that disagrees with what the init
// segment's av1C says (its optional tail carries the colour description),
// if any. Every AV1 entry must agree; a list without one names the video
// with its first entry.
std::optional<std::string> disagreeing_codecs_entry(std::string_view declared, const std::string& from_init);

// stream: how the lines name it ("variant 720p/index.m3u8").
std::vector<std::string> declared_video_problems(const std::string& stream, const mux::HlsAttributes& attrs,
                                                 const InitFacts& init);

// The variant may be played with any rendition of its audio group: its
// numbers hold for the largest (audio tracks not ok are left out).
std::vector<std::string> bandwidth_problems(const mux::HlsAttributes& attrs, const TrackCheck& video,
                                            const std::vector<const TrackCheck*>& audio);

// An audio rendition (shown_uri as the lines name it) against the first
// variant: as many segments, the same span, each cut within an AAC frame of
// the video's.
std::vector<std::string> audio_alignment_problems(const std::string& shown_uri, const TrackCheck& audio,
                                                  const TrackCheck& reference);

// A variant against the first one (reference_uri as the lines name it):
// every segment ends where the first variant's does.
std::vector<std::string> variant_alignment_problems(const TrackCheck& variant, const TrackCheck& reference,
                                                    const std::string& reference_uri);

// A subtitle playlist whose segments end at ends (cumulative EXTINF)
// against the first variant.
std::vector<std::string> subtitle_alignment_problems(const std::vector<double>& ends, const TrackCheck& reference);

}  // namespace ladder::engine
