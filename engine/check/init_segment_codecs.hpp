#pragma once
// What a CMAF init segment's AV1 track says of itself: the RFC 6381 codecs
// string of its av1C sequence header (what HLS's CODECS and DASH's @codecs
// must say), the header's colour description, and where the init segment's
// other descriptions of the same stream (av1C's own fields, colr boxes)
// disagree with that header. Shared by the HLS and DASH checks of
// `ladder validate`.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ladder::engine {

// ISO/IEC 23091-2 code points (2: unspecified, what a sequence header
// without a colour description means) and the range.
struct ColourDescription {
    int primaries = 2;
    int transfer = 2;
    int matrix = 2;
    bool full_range = false;
};

// "primaries 6, transfer 6, matrix 6, limited range"
std::string colour_in_words(const ColourDescription& colour);

struct InitCodecs {
    std::optional<std::string> codecs;        // av01...; nullopt for a track that is not AV1, or on a problem
    std::optional<ColourDescription> colour;  // the sequence header's, set with codecs
    std::string problem;                      // why it could not be read (empty when none)
    // One line each: av1C's fields or a colr box saying otherwise than the
    // sequence header.
    std::vector<std::string> disagreements;
};

InitCodecs av1_codecs_of_init(const std::vector<std::uint8_t>& init, const std::filesystem::path& file);

}  // namespace ladder::engine
