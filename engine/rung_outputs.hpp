#pragma once
// Where one rung goes: a single MP4 file, a CMAF/HLS folder, or both (the
// same encoded chunks feed each).
#include <filesystem>
#include <optional>

namespace ladder::engine {

struct RungOutputs {
    std::optional<std::filesystem::path> mp4;      // OUTDIR/<rung>.mp4
    std::optional<std::filesystem::path> hls_dir;  // OUTDIR/<rung>/
};

}  // namespace ladder::engine
