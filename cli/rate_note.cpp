#include "cli/rate_note.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ladder::cli {

std::string rate_note(const engine::RungReport& rung, double frame_rate) {
    const auto standing = engine::rate_standing(rung, frame_rate);
    if (!standing || standing->verdict == engine::RateStanding::Verdict::on_target) return "";
    return fmt::format(" ({:.0f}% {} its {} kb/s target)", std::abs(standing->off) * 100,
                       engine::verdict_name(standing->verdict), rung.bitrate_kbps);
}

}  // namespace ladder::cli
