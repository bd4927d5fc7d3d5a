#pragma once
// The words `ladder report` puts in both the SVG and the HTML page, so the two
// say the same thing. Plain text: the caller escapes it for its markup.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/report_view.hpp"

namespace ladder::cli {

// "clip.mp4 — wall 12.34 s, 3 rungs, 2 slots"
std::string report_title(const ReportView& report);

// Lines under the title: how the run ended when it failed, the rate control
// (and a budget run's passes over the source), the decode's busy time,
// failed attempts (not drawn: the report has no times for them), an empty
// chunk list. Empty for a plain successful run with chunks of an older
// report (no rate control named).
std::vector<std::string> report_notes(const ReportView& report);

// "720p 1280x720, 2500 kb/s"; only the name when the report lacks the rest.
std::string rung_summary(const ViewRung& rung);

// "19" or "19-21": the lowest and highest of a rung's chunk CRFs (not empty).
template <class Int>
std::string crf_range(const std::vector<Int>& crfs) {
    const auto [low, high] = std::minmax_element(crfs.begin(), crfs.end());
    return *low == *high ? fmt::format("{}", *low) : fmt::format("{}-{}", *low, *high);
}

// "25-28 (mixed)", "31 (on_target)", "24" (a ladder's CRF); empty for a rate.
std::string crf_summary(const ViewRung& rung);

// 0.734 → "73%"
std::string percent(double share);

// 123456 → "123 kB", 5300 → "5.3 kB", 800 → "800 B" (decimal units, as kb/s)
std::string byte_size(std::uint64_t bytes);

}  // namespace ladder::cli
