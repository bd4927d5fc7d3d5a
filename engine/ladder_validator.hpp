#pragma once
// `ladder validate`: checks a CMAF/HLS ladder on disk the way a player and a
// packager reviewer would — playlists parse, every referenced file exists,
// every segment starts with a key frame, CODECS matches the init segment's
// av1C, BANDWIDTH / AVERAGE-BANDWIDTH are within 10% of what the files
// measure, EXTINF values match the samples, and segment boundaries line up
// across rungs (and with the audio, which must start and end with the video:
// engine/segment_timing.hpp); and the DASH manifest next to them, when there
// is one (engine/dash_validator.hpp).
#include <filesystem>
#include <string>
#include <vector>

namespace ladder::engine {

struct ValidationReport {
    std::vector<std::string> problems;  // one line each, naming the file
    int variants = 0;
    int segments = 0;  // media segments checked
};

ValidationReport validate_hls_ladder(const std::filesystem::path& outdir);

}  // namespace ladder::engine
