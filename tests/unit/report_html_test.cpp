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
                        "<td class=\"num\">3</td><td class=\"num\">800</td><td>–</td><td class=\"num\">18.8</td>"
                        "<td>cpu0:svt, cpu1:svt</td></tr>"),
              std::string::npos)
        << html;
    EXPECT_NE(html.find("<tr data-rung=\"a&lt;b&amp;&quot;c&quot;\"><td><span class=\"swatch\" style=\"background:" +
                        cli::rung_color(1) + "\"></span>a&lt;b&amp;&quot;c&quot;</td>"),
              std::string::npos);
}

// A budget run: the rate control and its passes under the title, each
// rung's chunk CRFs (lowest-highest) and how its search ended.
TEST(ReportHtml, BudgetRunShowsItsPassesAndEachRungsCrfs) {
    nlohmann::json report = hand_built_report();
    report["rate_control"] = "budget";
    report["source_passes"] = 6;
    report["rungs"][0]["crf"] = 25;
    report["rungs"][0]["crf_search"] = {{"chunk_crf", {25, 28, 28}}, {"encodes", 2}, {"verdict", "mixed"}};
    report["rungs"][1]["crf"] = 31;
    report["rungs"][1]["crf_search"] = {{"chunk_crf", {31, 31, 31}}, {"encodes", 3}, {"verdict", "on_target"}};
    const std::string html = cli::render_report_html(cli::report_view_from_json(report));
    EXPECT_NE(html.find("<p class=\"note\">rate control: budget, 6 passes over the source</p>"), std::string::npos)
        << html;
    EXPECT_NE(html.find("<td class=\"num\">800</td><td>25-28 (mixed)</td>"), std::string::npos) << html;
    EXPECT_NE(html.find("<td class=\"num\">120</td><td>31 (on_target)</td>"), std::string::npos) << html;

    // A vbr run whose ladder sets a rung's CRF: that CRF, no passes.
    report["rate_control"] = "vbr";
    report["source_passes"] = 1;
    report["rungs"][1].erase("crf_search");
    report["rungs"][0].erase("crf_search");
    report["rungs"][0]["crf"] = -1;
    const std::string vbr = cli::render_report_html(cli::report_view_from_json(report));
    EXPECT_NE(vbr.find("<p class=\"note\">rate control: vbr</p>"), std::string::npos) << vbr;
    EXPECT_NE(vbr.find("<td class=\"num\">800</td><td>–</td>"), std::string::npos) << vbr;
    EXPECT_NE(vbr.find("<td class=\"num\">120</td><td>31</td>"), std::string::npos) << vbr;
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
