#include "cli/rate_note.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string>
#include <vector>

namespace ladder::cli {

std::string rate_note(const engine::RungReport& rung, double frame_rate) {
    const auto standing = engine::rate_standing(rung, frame_rate);
    if (!standing) return "";
    std::vector<std::string> notes;
    if (rung.crf_search == "at_quality_ceiling")
        notes.push_back(fmt::format("at the quality ceiling: {:.0f} of {} kb/s", standing->average_kbps,
                                    rung.bitrate_kbps));
    else if (rung.crf_search == "under_for_peaks")
        notes.push_back(fmt::format("{:.0f}% under its {} kb/s target: more would put a segment over 2x the average",
                                    std::abs(standing->off) * 100, rung.bitrate_kbps));
    else if (rung.crf_search == "mixed" && standing->verdict == engine::RateStanding::Verdict::under)
        // No plan of whole CRFs lands in the band (a grainy short rung: one
        // chunk one step moves the rung past it); under, never over or padded.
        notes.push_back(fmt::format("{:.0f}% under its {} kb/s target: one CRF step of a chunk moves the rung further "
                                    "than the band",
                                    std::abs(standing->off) * 100, rung.bitrate_kbps));
    else if (standing->verdict != engine::RateStanding::Verdict::on_target)
        notes.push_back(fmt::format("{:.0f}% {} its {} kb/s target", std::abs(standing->off) * 100,
                                    engine::verdict_name(standing->verdict), rung.bitrate_kbps));
    if (standing->peak_over_average > engine::kPeakOverAverageLimit)
        notes.push_back(fmt::format("peak chunk {:.1f}x the average", standing->peak_over_average));
    return notes.empty() ? "" : fmt::format(" ({})", fmt::join(notes, "; "));
}

}  // namespace ladder::cli
