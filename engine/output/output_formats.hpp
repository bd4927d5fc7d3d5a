#pragma once
// What a run writes, as a set of formats (`--format hls,dash,mp4`):
//   hls:  each rung's CMAF segments in OUTDIR/<rung>/ with its media and
//         I-frame playlists, the audio and subtitle renditions, and
//         OUTDIR/master.m3u8;
//   dash: OUTDIR/manifest.mpd over those same CMAF segments (so it writes
//         them, and their playlists, too);
//   mp4:  one OUTDIR/<rung>.mp4 per rung.
// Each format in the set is written from the same encoded chunks.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace ladder::engine {

enum class OutputFormat : std::uint8_t { hls, dash, mp4 };

// Every format, in the order their names are written.
inline constexpr OutputFormat kOutputFormats[] = {OutputFormat::hls, OutputFormat::dash, OutputFormat::mp4};

constexpr std::string_view format_name(OutputFormat f) {
    switch (f) {
        case OutputFormat::hls: return "hls";
        case OutputFormat::dash: return "dash";
        case OutputFormat::mp4: return "mp4";
    }
    return "?";
}

class OutputFormats {
public:
    constexpr OutputFormats() = default;
    constexpr OutputFormats(std::initializer_list<OutputFormat> formats) {
        for (OutputFormat f : formats) add(f);
    }

    constexpr OutputFormats& add(OutputFormat f) {
        bits_ = static_cast<std::uint8_t>(bits_ | bit(f));
        return *this;
    }
    constexpr bool contains(OutputFormat f) const { return (bits_ & bit(f)) != 0; }
    constexpr bool empty() const { return bits_ == 0; }
    // Each rung's CMAF segments and their playlists: HLS's, which DASH's
    // manifest reads too.
    constexpr bool cmaf_segments() const { return contains(OutputFormat::hls) || contains(OutputFormat::dash); }

    friend constexpr bool operator==(OutputFormats, OutputFormats) = default;

private:
    static constexpr std::uint8_t bit(OutputFormat f) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(f)); }
    std::uint8_t bits_ = 0;
};

// "hls,dash,mp4": the names in the set, in kOutputFormats's order.
std::string to_string(OutputFormats formats);

// A comma list of hls, dash and mp4 (both = hls,mp4), as `--format` takes
// it. Throws InputError naming what is not a format, or for an empty list.
OutputFormats parse_output_formats(const std::string& list);

}  // namespace ladder::engine
