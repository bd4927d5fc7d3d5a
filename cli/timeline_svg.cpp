#include "cli/timeline_svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "av/xml_escape.hpp"
#include "cli/report_text.hpp"

namespace ladder::cli {
namespace {

using av::xml_escape;

// Layout in SVG user units (pixels at 100%).
constexpr double kMargin = 12;
constexpr double kPlotWidth = 720;
constexpr double kCharWidth = 7;  // a generous average for 12 px sans-serif: labels are not measured
constexpr double kMinLabelWidth = 80;
constexpr double kShareWidth = 56;  // room for "100%" after each row
constexpr double kTitleY = 22;
constexpr double kLineHeight = 16;
constexpr double kRowHeight = 22;
constexpr double kBarHeight = 14;
constexpr double kAxisHeight = 34;
constexpr double kLegendLine = 18;

// Tableau 10: distinct and readable on white; rungs past ten get hues from
// the golden angle (137° and 360 share no factor, so they never repeat).
constexpr std::array<const char*, 10> kPalette{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                               "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

double label_width(const ReportView& report) {
    std::size_t longest = 0;
    for (const auto& s : report.slots) longest = std::max(longest, s.label.size());
    return std::max(kMinLabelWidth, 2 * kMargin + kCharWidth * static_cast<double>(longest));
}

// A tick step of 1, 2 or 5 times a power of ten, giving at most about ten ticks.
double tick_step(double seconds) {
    const double raw = seconds / 8.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double normalized = raw / magnitude;
    const double factor = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10;
    return factor * magnitude;
}

int tick_decimals(double step) { return std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))); }

using Out = std::back_insert_iterator<std::string>;

void draw_rows(Out out, const ReportView& report, const TimelineGeometry& g, double top) {
    const double scale = g.plot_width / g.seconds;
    fmt::format_to(out, "<g class=\"rows\">\n");
    for (std::size_t s = 0; s < report.slots.size(); ++s) {
        const ViewSlot& slot = report.slots[s];
        const double y = top + static_cast<double>(s) * kRowHeight;
        const double bar_y = y + (kRowHeight - kBarHeight) / 2;
        const std::string label = xml_escape(slot.label);
        fmt::format_to(out, "<g class=\"row\" data-slot=\"{}\">\n", label);
        fmt::format_to(out, "<text class=\"slot-label\" x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"end\">{}</text>\n",
                       g.plot_left - 8, y + kRowHeight / 2 + 4, label);
        fmt::format_to(out, "<rect class=\"lane\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" "
                            "fill=\"#f2f2f2\"/>\n",
                       g.plot_left, bar_y, g.plot_width, kBarHeight);
        // Report order, then by start time: a row reads left to right.
        std::vector<const ViewChunk*> chunks;
        for (const auto& c : report.chunks)
            if (c.slot == s) chunks.push_back(&c);
        std::stable_sort(chunks.begin(), chunks.end(),
                         [](const ViewChunk* a, const ViewChunk* b) { return a->start_seconds < b->start_seconds; });
        for (const ViewChunk* c : chunks) {
            const std::string rung = xml_escape(report.rungs[c->rung].name);
            fmt::format_to(out,
                           "<rect class=\"chunk\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" "
                           "fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.5\" data-rung=\"{}\" "
                           "data-rung-index=\"{}\" data-chunk=\"{}\" data-slot=\"{}\" data-start=\"{:.3f}\" "
                           "data-end=\"{:.3f}\">",
                           g.plot_left + c->start_seconds * scale, bar_y,
                           (c->end_seconds - c->start_seconds) * scale, kBarHeight, rung_color(c->rung), rung,
                           c->rung, c->index, label, c->start_seconds, c->end_seconds);
            fmt::format_to(out, "<title>{} chunk {} on {}, {:.2f}-{:.2f} s, {} frames, {}</title></rect>\n", rung,
                           c->index, label, c->start_seconds, c->end_seconds, c->frames, byte_size(c->bytes));
        }
        fmt::format_to(out, "<text class=\"busy\" x=\"{:.2f}\" y=\"{:.2f}\">{}</text>\n",
                       g.plot_left + g.plot_width + 8, y + kRowHeight / 2 + 4, percent(slot.busy_share));
        fmt::format_to(out, "</g>\n");
    }
    fmt::format_to(out, "</g>\n");
}

void draw_axis(Out out, const TimelineGeometry& g, double top) {
    const double step = tick_step(g.seconds);
    const int decimals = tick_decimals(step);
    fmt::format_to(out, "<g class=\"axis\">\n");
    fmt::format_to(out, "<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"#333333\"/>\n",
                   g.plot_left, top, g.plot_left + g.plot_width, top);
    // Counting ticks (not adding steps) keeps rounding from dropping the last one.
    const auto ticks = static_cast<long>(std::floor(g.seconds / step + 1e-9));
    for (long k = 0; k <= ticks; ++k) {
        const double t = static_cast<double>(k) * step;
        const double x = g.plot_left + t / g.seconds * g.plot_width;
        fmt::format_to(out, "<line class=\"tick\" x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" "
                            "stroke=\"#333333\"/>\n",
                       x, top, x, top + 5);
        fmt::format_to(out,
                       "<text class=\"tick-label\" x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"middle\">{:.{}f} s</text>\n",
                       x, top + 18, t, decimals);
    }
    fmt::format_to(out, "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"end\" fill=\"#666666\">seconds since the run "
                        "started; at the end of each row, the slot's busy share</text>\n",
                   g.plot_left + g.plot_width, top + kAxisHeight - 2);
    fmt::format_to(out, "</g>\n");
}

void draw_legend(Out out, const ReportView& report, const TimelineGeometry& g, double top) {
    fmt::format_to(out, "<g class=\"legend\">\n");
    for (std::size_t r = 0; r < report.rungs.size(); ++r) {
        const double y = top + static_cast<double>(r) * kLegendLine;
        fmt::format_to(out, "<g class=\"legend-entry\" data-rung=\"{}\">", xml_escape(report.rungs[r].name));
        fmt::format_to(out, "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"12\" height=\"12\" fill=\"{}\"/>", g.plot_left,
                       y, rung_color(r));
        fmt::format_to(out, "<text x=\"{:.2f}\" y=\"{:.2f}\">{}</text></g>\n", g.plot_left + 18, y + 10,
                       xml_escape(rung_summary(report.rungs[r])));
    }
    fmt::format_to(out, "</g>\n");
}

}  // namespace

TimelineGeometry timeline_geometry(const ReportView& report) {
    TimelineGeometry g;
    g.plot_left = label_width(report);
    g.plot_width = kPlotWidth;
    g.seconds = report.wall_seconds;
    for (const auto& c : report.chunks) g.seconds = std::max(g.seconds, c.end_seconds);
    if (g.seconds <= 0) g.seconds = 1;  // an empty run still gets an axis
    return g;
}

std::string rung_color(std::size_t index) {
    if (index < kPalette.size()) return kPalette[index];
    return fmt::format("hsl({},60%,45%)", (index * 137) % 360);
}

std::string render_timeline_svg(const ReportView& report) {
    const TimelineGeometry g = timeline_geometry(report);
    const std::vector<std::string> notes = report_notes(report);
    const double rows_top = kTitleY + 8 + kLineHeight * static_cast<double>(notes.size());
    const double axis_top = rows_top + kRowHeight * static_cast<double>(report.slots.size()) + 4;
    const double legend_top = axis_top + kAxisHeight + 8;
    const double width = g.plot_left + g.plot_width + kShareWidth;
    const double height = legend_top + kLegendLine * static_cast<double>(report.rungs.size()) + kMargin;

    std::string svg;
    const Out out(svg);
    fmt::format_to(out,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ladder-timeline\" width=\"{0:.0f}\" "
                   "height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n",
                   width, height);
    const std::string title = xml_escape(report_title(report));
    fmt::format_to(out, "<title>{}</title>\n", title);
    fmt::format_to(out, "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    fmt::format_to(out,
                   "<text class=\"title\" x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
                   kMargin, kTitleY, title);
    for (std::size_t i = 0; i < notes.size(); ++i)
        fmt::format_to(out, "<text class=\"note\" x=\"{:.2f}\" y=\"{:.2f}\" fill=\"#555555\">{}</text>\n", kMargin,
                       kTitleY + kLineHeight * static_cast<double>(i + 1), xml_escape(notes[i]));
    draw_rows(out, report, g, rows_top);
    draw_axis(out, g, axis_top);
    draw_legend(out, report, g, legend_top);
    fmt::format_to(out, "</svg>\n");
    return svg;
}

}  // namespace ladder::cli
