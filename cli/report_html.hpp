#pragma once
// The page `ladder report --html` writes: one self-contained HTML file (no
// scripts, no external files) with the timeline SVG inline, a table per rung
// (frames, chunks, average kb/s, encode fps, slots), a table per encoder slot
// (chunks, busy share, failures) and the failed attempts with their errors.
#include <string>

#include "cli/report_view.hpp"

namespace ladder::cli {

std::string render_report_html(const ReportView& report);

}  // namespace ladder::cli
