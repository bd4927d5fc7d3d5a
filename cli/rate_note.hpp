#pragma once
// The summary line's word on a rung that missed its target (README "What a
// rung's bit rate means"; the rule is engine::rate_standing's).
#include <string>

#include "engine/base/job_report.hpp"

namespace ladder::cli {

// "" when the rung is within the band (or has no target) and its largest
// chunk at most twice its average, else what is not: " (22% over its 2500
// kb/s target)", " (12% under its 2500 kb/s target; peak chunk 2.9x the
// average)".
std::string rate_note(const engine::RungReport& rung, double frame_rate);

}  // namespace ladder::cli
