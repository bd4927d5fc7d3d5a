#pragma once
// Just enough ISO-BMFF box walking to describe the fragments libavformat's
// mp4 muxer writes: where the moof and mdat are, where the first sample ends
// (the byte range of an HLS I-frame entry), when the samples play (tfdt,
// trun, the init segment's mdhd and edit list) and what an init segment
// says of its track that `ladder validate` compares (timescale, colr); and
// to give an init segment the edit list that hides an AAC encoder's
// priming. FFmpeg exposes no API for that (and its muxer writes no edit
// list into an init segment that is written before the first sample, in
// 5.1 and 7.1), so it is done on the bytes.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ladder::mux {

struct Box {
    std::string type;          // four characters
    std::uint64_t offset = 0;  // of the box header within the buffer
    std::uint64_t size = 0;    // whole box, header included
    std::uint64_t header = 0;  // 8, or 16 with a 64-bit size
};

// The boxes directly inside data (a file, or a container box's payload).
// Stops at the first box that does not fit.
std::vector<Box> read_boxes(std::span<const std::uint8_t> data);

struct FragmentLayout {
    std::uint64_t moof_offset = 0;
    std::uint64_t moof_size = 0;
    std::uint64_t first_sample_offset = 0;  // from the start of data
    std::uint64_t first_sample_size = 0;
    std::uint32_t sample_count = 0;
    // Sum of the sample durations (trun, else the tfhd default), in the
    // track's timescale; nullopt when only the init segment's trex knows.
    std::optional<std::uint64_t> duration;
    std::optional<std::uint64_t> first_sample_duration;  // the same, of the first sample
    std::optional<std::uint64_t> decode_time;            // tfdt: the first sample's, in the track's timescale
};

// Describes the first moof (first traf, first trun) of a fragment.
std::optional<FragmentLayout> read_fragment_layout(std::span<const std::uint8_t> data);

// A colr box of type nclx (ISO/IEC 14496-12) or nclc (QuickTime, no range
// flag): ISO/IEC 23091-2 code points. ICC profiles carry none of them.
struct ColourBox {
    std::string type;  // "nclx" or "nclc"
    int primaries = 0;
    int transfer = 0;
    int matrix = 0;
    std::optional<bool> full_range;  // nclx only
};

// Every nclx/nclc colr box of the first track's first (visual) sample entry
// of an init segment (moov/trak/mdia/minf/stbl/stsd/av01/colr).
std::vector<ColourBox> read_colour_boxes(std::span<const std::uint8_t> init);

// How an init segment's (first) track maps media time to presentation time.
struct TrackTiming {
    std::uint32_t timescale = 0;  // mdhd
    // The media time presented at presentation time 0, in timescale units:
    // the first edit's media_time less any empty edits before it (0 without
    // an edit list). A sample plays at (its media time - this) / timescale.
    std::int64_t media_time_at_zero = 0;
    bool has_edit_list = false;
};

// nullopt when the init segment has no moov/trak/mdia/mdhd, its timescale
// is 0 or its edit list cannot be read.
std::optional<TrackTiming> read_track_timing(std::span<const std::uint8_t> init);

// The init segment with an edit list (edts/elst) put into its track, after
// tkhd: one edit from media_time (the track's timescale) on to the end of
// the track (segment_duration 0, as fragmented files have it). Throws
// std::runtime_error when the init segment has no moov/trak/tkhd or its
// track already has an edit list.
std::vector<std::uint8_t> with_edit_list(std::span<const std::uint8_t> init, std::int64_t media_time);

}  // namespace ladder::mux
