#include "cli/report_html.hpp"

#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "av/xml_escape.hpp"
#include "cli/report_text.hpp"
#include "cli/timeline_svg.hpp"

namespace ladder::cli {
namespace {

using av::xml_escape;
using Out = std::back_insert_iterator<std::string>;

// What a partial report does not know is shown as a dash, not as 0.
constexpr const char* kUnknown = "–";

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
    "th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".swatch{display:inline-block;width:0.8em;height:0.8em;margin-right:0.4em;vertical-align:baseline}"
    ".note{color:#555}";

void rung_table(Out out, const ReportView& report) {
    fmt::format_to(out, "<h2>Rungs</h2>\n<table class=\"rungs\">\n<tr><th>rung</th><th>size</th><th>target kb/s</th>"
                        "<th>frames</th><th>chunks</th><th>average kb/s</th><th>CRF</th><th>encode fps</th>"
                        "<th>slots</th></tr>\n");
    for (std::size_t r = 0; r < report.rungs.size(); ++r) {
        const ViewRung& g = report.rungs[r];
        const std::string size =
            g.width && g.height ? fmt::format("{}x{}", *g.width, *g.height) : std::string(kUnknown);
        const std::string target = g.bitrate_kbps ? fmt::format("{}", *g.bitrate_kbps) : std::string(kUnknown);
        const std::string average = g.average_kbps ? fmt::format("{:.0f}", *g.average_kbps) : std::string(kUnknown);
        const std::string crf = g.chunk_crf.empty() ? std::string(kUnknown) : crf_summary(g);
        fmt::format_to(out,
                       "<tr data-rung=\"{0}\"><td><span class=\"swatch\" style=\"background:{1}\"></span>{0}</td>"
                       "<td>{2}</td><td class=\"num\">{3}</td><td class=\"num\">{4}</td><td class=\"num\">{5}</td>"
                       "<td class=\"num\">{6}</td><td>{7}</td><td class=\"num\">{8:.1f}</td><td>{9}</td></tr>\n",
                       xml_escape(g.name), rung_color(r), size, target, g.frames, g.chunks, average, xml_escape(crf),
                       g.encode_fps, xml_escape(fmt::format("{}", fmt::join(g.slots, ", "))));
    }
    fmt::format_to(out, "</table>\n");
}

void slot_table(Out out, const ReportView& report) {
    fmt::format_to(out, "<h2>Encoder slots</h2>\n<table class=\"slots\">\n<tr><th>slot</th><th>encoder</th>"
                        "<th>chunks</th><th>busy share</th><th>failures</th><th>quarantined</th></tr>\n");
    for (const ViewSlot& s : report.slots)
        fmt::format_to(out,
                       "<tr data-slot=\"{0}\"><td>{0}</td><td>{1}</td><td class=\"num\">{2}</td>"
                       "<td class=\"num\">{3}</td><td class=\"num\">{4}</td><td>{5}</td></tr>\n",
                       xml_escape(s.label), s.encoder.empty() ? kUnknown : xml_escape(s.encoder), s.chunks,
                       percent(s.busy_share), s.failures, s.quarantined ? "yes" : "no");
    fmt::format_to(out, "</table>\n");
}

void retry_table(Out out, const ReportView& report) {
    if (report.retries.empty()) return;
    fmt::format_to(out, "<h2>Failed attempts</h2>\n<p class=\"note\">Not on the timeline: the report has no times "
                        "for them.</p>\n<table class=\"retries\">\n<tr><th>rung</th><th>chunk</th><th>slot</th>"
                        "<th>cause</th><th>error</th></tr>\n");
    for (const ViewRetry& t : report.retries)
        fmt::format_to(out, "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       xml_escape(t.rung), t.chunk, xml_escape(t.slot), xml_escape(t.cause), xml_escape(t.error));
    fmt::format_to(out, "</table>\n");
}

}  // namespace

std::string render_report_html(const ReportView& report) {
    std::string html;
    const Out out(html);
    const std::string title = xml_escape(report_title(report));
    fmt::format_to(out,
                   "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<title>ladder report: {}</title>\n<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
                   title, kStyle, title);
    for (const std::string& note : report_notes(report))
        fmt::format_to(out, "<p class=\"note\">{}</p>\n", xml_escape(note));
    fmt::format_to(out, "{}", render_timeline_svg(report));
    rung_table(out, report);
    slot_table(out, report);
    retry_table(out, report);
    fmt::format_to(out, "</body>\n</html>\n");
    return html;
}

}  // namespace ladder::cli
