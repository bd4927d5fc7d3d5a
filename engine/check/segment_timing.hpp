#pragma once
// When the samples of a CMAF media segment play, as a player places them:
// the fragment's decode time (tfdt) and sample durations (trun) mapped
// through its init segment's edit list (mux/bmff_boxes.hpp); and whether an
// audio track's span lines up with the video's. Shared by the HLS and DASH
// checks of `ladder validate`.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mux/bmff_boxes.hpp"

namespace ladder::engine {

// Seconds on the presentation timeline (0: the first video frame).
struct SegmentTiming {
    double start = 0;             // its first sample; before 0 it is decoded but not presented
    double first_sample_end = 0;  // where its first sample ends
    double end = 0;               // where its last sample ends
    // What of it plays: a first segment that starts before 0 plays from 0.
    double presented_start() const { return start > 0 ? start : 0; }
    double presented() const { return end - presented_start(); }
};

// nullopt when the init segment has no mdhd timescale or the segment no
// tfdt or no sample durations, or when its times do not fit in 64 signed
// bits (a hostile tfdt, trun or edit list).
std::optional<SegmentTiming> segment_timing(std::span<const std::uint8_t> init, std::span<const std::uint8_t> segment);
// The same from what was read of them already (mux::read_track_timing,
// mux::read_fragment_layout).
std::optional<SegmentTiming> segment_timing(const mux::TrackTiming& track, const mux::FragmentLayout& layout);

// Where a decode time (the track's timescale) falls on the presentation
// timeline, in seconds.
double presentation_seconds(const mux::TrackTiming& track, std::uint64_t decode_time);

// How an AAC track's span (its first and last segments) is off the video's,
// one phrase each ("starts at ..., the video at ..."); empty when it lines
// up. The audio proper starts where its first AAC frame ends: that frame
// decodes to the encoder's priming (FFmpeg's AAC encoder primes one frame,
// 1024 samples), which an edit list must hide. Start and end must be within
// half an AAC frame of the video's; ladder makes them the same to the sample.
std::vector<std::string> audio_span_mismatches(const SegmentTiming& audio_first, const SegmentTiming& audio_last,
                                               const SegmentTiming& video_first, const SegmentTiming& video_last);

}  // namespace ladder::engine
