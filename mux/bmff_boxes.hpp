#pragma once
// Just enough ISO-BMFF box walking to describe the fragments libavformat's
// mp4 muxer writes: where the moof and mdat are, and where the first sample
// ends (the byte range of an HLS I-frame entry), and what an init segment
// says of its track that `ladder validate` compares (timescale, colr).
// FFmpeg exposes no API for that, so it is read back from the bytes.
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
    // The first sample's decode time (tfdt), in the track's timescale.
    std::optional<std::uint64_t> decode_time;
};

// Describes the first moof (first traf, first trun) of a fragment.
std::optional<FragmentLayout> read_fragment_layout(std::span<const std::uint8_t> data);

// The first track's timescale (moov/trak/mdia/mdhd) of an init segment.
std::optional<std::uint32_t> read_track_timescale(std::span<const std::uint8_t> init);

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

}  // namespace ladder::mux
