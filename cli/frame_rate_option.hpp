#pragma once
// `--frame-rate` (an image sequence's rate): 24, 23.976, 30000/1001.
#include <string>

extern "C" {
#include <libavutil/rational.h>
}

namespace ladder::cli {

// An integer, a decimal or N/D, above 0 and at most 240 frames a second.
// Decimals within 0.005 of an NTSC rate (N x 1000/1001: 23.976, 29.97,
// 59.94) are that rate exactly, as people write them. Throws
// std::invalid_argument with the option's name and what to write.
AVRational parse_frame_rate(const std::string& text);

}  // namespace ladder::cli
