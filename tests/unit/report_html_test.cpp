// The HTML page of `ladder report --html`: self-contained (the SVG inline, no
// scripts or links), a row per rung and per slot with the report's numbers,
// dashes for what a partial report does not know, escaping everywhere.
#include "cli/report_html.hpp"

#include <gtest/gtest.h>

#include "cli/timeline_svg.hpp"
#include "report_fixture.hpp"
#include "svg_elements.hpp"

namespace ladder::test {
namespace {

TEST(ReportHtml, EmbedsTheTimelineAndNothingExternal) {
    const cli::ReportView view = cli::report_view_from_json(hand_built_report());
    const std::string html = cli::render_report_html(view);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
    EXPECT_NE(html.find(cli::render_timeline_svg(view)), std::string::npos);
    for (const char* outside : {"<script", "<link", "src=", "href="})
        EXPECT_EQ(html.find(outside), std::string::npos) << outside;
}

TEST(ReportHtml, RungTable) {
    const std::string html = cli::render_report_html(cli::report_view_from_json(hand_built_report()));
    EXPECT_NE(html.find("<tr data-rung=\"720p\"><td><span class=\"swatch\" style=\"background:" + cli::rung_color(0) +
                        "\"></span>720p</td><td>1280x720</td><td class=\"num\">2500</td><td class=\"num\">150</td>"
                        "<td class=\"num\">3</td><td class=\"num\">800</td><td class=\"num\">18.8</td>"
                        "<td>cpu0:svt, cpu1:svt</td></tr>"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("<tr data-rung=\"a&lt;b&amp;&quot;c&quot;\"><td><span class=\"swatch\" style=\"background:" +
                        cli::rung_color(1) + "\"></span>a&lt;b&amp;&quot;c&quot;</td>"),
              std::string::npos);
}

TEST(ReportHtml, SlotTableAndFailedAttempts) {
    const std::string html = cli::render_report_html(cli::report_view_from_json(hand_built_report()));
    EXPECT_NE(html.find("<tr data-slot=\"cpu1:svt\"><td>cpu1:svt</td><td>libsvtav1</td><td class=\"num\">3</td>"
                        "<td class=\"num\">56%</td><td class=\"num\">1</td><td>no</td></tr>"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("<tr data-slot=\"gpu0:nvenc\"><td>gpu0:nvenc</td><td>av1_nvenc</td><td class=\"num\">0</td>"),
              std::string::npos);
    EXPECT_NE(html.find("<td>crash</td><td>opening libsvtav1 &lt;boom&gt; &amp; &quot;bust&quot;</td>"),
              std::string::npos);
    EXPECT_EQ(html.find("<boom>"), std::string::npos);
}

TEST(ReportHtml, PartialReportShowsDashesForWhatItLacks) {
    nlohmann::json report = hand_built_report();
    report["ok"] = false;
    report["partial"] = true;
    report["error"] = "rung <720p> failed";
    for (auto& r : report["rungs"])
        for (const char* key : {"width", "height", "bitrate_kbps", "average_kbps"}) r.erase(key);
    const std::string html = cli::render_report_html(cli::report_view_from_json(report));
    EXPECT_NE(html.find("720p</td><td>–</td><td class=\"num\">–</td><td class=\"num\">150</td>"), std::string::npos)
        << html;
    EXPECT_NE(html.find("<p class=\"note\">the run failed (partial report): rung &lt;720p&gt; failed</p>"),
              std::string::npos);
    EXPECT_EQ(count_of(html, "<p class=\"note\">"), 4u);  // failure, decode, failed attempts (+ the retries table's)
}

}  // namespace
}  // namespace ladder::test
