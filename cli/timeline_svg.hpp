#pragma once
// The timeline picture of `ladder report`: one row per encoder slot, one bar
// per chunk from its start to its end, colored by rung, a time axis in
// seconds, each slot's busy share at the end of its row, a legend and a title.
// A pure function of the report: the same report gives the same bytes.
// Layout and element names: docs/report-timeline.md.
#include <cstddef>
#include <string>

#include "cli/report_view.hpp"

namespace ladder::cli {

// Where time 0 and the end of the time axis are, in SVG user units.
struct TimelineGeometry {
    double plot_left = 0;   // x of 0 s
    double plot_width = 0;  // x of `seconds` is plot_left + plot_width
    double seconds = 0;     // the axis' length: the wall time, or the last chunk end if later
};

TimelineGeometry timeline_geometry(const ReportView& report);

// The fill color of rung `index` (CSS color syntax); distinct for every index.
std::string rung_color(std::size_t index);

// The picture as an <svg> element (no XML declaration, so the same text is a
// standalone .svg file and can be inlined in HTML), ending with a newline.
std::string render_timeline_svg(const ReportView& report);

}  // namespace ladder::cli
