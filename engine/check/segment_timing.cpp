#include "engine/check/segment_timing.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "mux/bmff_boxes.hpp"

namespace ladder::engine {

std::optional<SegmentTiming> segment_timing(std::span<const std::uint8_t> init, std::span<const std::uint8_t> segment) {
    const auto track = mux::read_track_timing(init);
    const auto layout = mux::read_fragment_layout(segment);
    if (!track || !layout) return std::nullopt;
    return segment_timing(*track, *layout);
}

std::optional<SegmentTiming> segment_timing(const mux::TrackTiming& track, const mux::FragmentLayout& layout) {
    if (track.timescale == 0 || !layout.decode_time || !layout.duration || !layout.first_sample_duration)
        return std::nullopt;
    // A hostile tfdt, trun or edit list may hold any 64-bit value: times
    // that do not fit in 64 signed bits are not believed.
    constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
    if (*layout.decode_time > kMax || *layout.first_sample_duration > kMax || *layout.duration > kMax)
        return std::nullopt;
    std::int64_t start = 0, first_sample_end = 0, end = 0;
    if (__builtin_sub_overflow(static_cast<std::int64_t>(*layout.decode_time), track.media_time_at_zero, &start) ||
        __builtin_add_overflow(start, static_cast<std::int64_t>(*layout.first_sample_duration), &first_sample_end) ||
        __builtin_add_overflow(start, static_cast<std::int64_t>(*layout.duration), &end))
        return std::nullopt;
    const double scale = track.timescale;
    SegmentTiming t;
    t.start = static_cast<double>(start) / scale;
    t.first_sample_end = static_cast<double>(first_sample_end) / scale;
    t.end = static_cast<double>(end) / scale;
    return t;
}

double presentation_seconds(const mux::TrackTiming& track, std::uint64_t decode_time) {
    if (track.timescale == 0) return 0;
    return (static_cast<double>(decode_time) - static_cast<double>(track.media_time_at_zero)) / track.timescale;
}

std::vector<std::string> audio_span_mismatches(const SegmentTiming& audio_first, const SegmentTiming& audio_last,
                                               const SegmentTiming& video_first, const SegmentTiming& video_last) {
    const double frame = audio_first.first_sample_end - audio_first.start;
    const double tolerance = frame / 2;
    std::vector<std::string> out;
    if (std::abs(audio_first.first_sample_end - video_first.presented_start()) > tolerance)
        out.push_back(fmt::format("starts at {:.6f} s (where its first AAC frame, the encoder's priming, ends), the "
                                  "video at {:.6f} s: more than half an AAC frame ({:.1f} ms) apart",
                                  audio_first.first_sample_end, video_first.presented_start(), tolerance * 1000));
    if (std::abs(audio_last.end - video_last.end) > tolerance)
        out.push_back(fmt::format("ends at {:.6f} s, the video at {:.6f} s: more than half an AAC frame ({:.1f} ms) "
                                  "apart",
                                  audio_last.end, video_last.end, tolerance * 1000));
    return out;
}

}  // namespace ladder::engine
