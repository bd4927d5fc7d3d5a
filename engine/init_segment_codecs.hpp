#pragma once
// The RFC 6381 codecs string of a CMAF init segment's AV1 track, from its
// av1C sequence header: what HLS's CODECS and DASH's @codecs must say.
// Shared by the HLS and DASH checks of `ladder validate`.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ladder::engine {

struct InitCodecs {
    std::optional<std::string> codecs;  // av01...; nullopt for a track that is not AV1, or on a problem
    std::string problem;                // why it could not be read (empty when none)
};

InitCodecs av1_codecs_of_init(const std::vector<std::uint8_t>& init, const std::filesystem::path& file);

}  // namespace ladder::engine
