#pragma once
// --format for `ladder encode` and `ladder stitch`: a comma list of hls,
// dash and mp4 (both = hls,mp4). dash is a manifest over the HLS rungs'
// CMAF segments, so it writes those segments (and their playlists) too.
#include <string>

#include "engine/run/job.hpp"

namespace ladder::cli {

struct OutputFormats {
    engine::OutputFormat packaging = engine::OutputFormat::hls;
    bool dash = false;
};

// Throws engine::InputError naming what is not a format.
OutputFormats parse_output_formats(const std::string& list);

}  // namespace ladder::cli
