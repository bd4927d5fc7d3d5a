#pragma once
// Where one rung goes, by name inside OUTDIR: a single MP4 file, a
// CMAF/HLS folder, or both (the same encoded chunks feed each).
#include <optional>
#include <string>

namespace ladder::engine {

struct RungOutputs {
    std::optional<std::string> mp4;         // <rung>.mp4
    std::optional<std::string> hls_folder;  // <rung>/
};

}  // namespace ladder::engine
