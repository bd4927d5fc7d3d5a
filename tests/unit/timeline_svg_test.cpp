// The timeline SVG of `ladder report`, from a hand-built report: one bar per
// chunk placed by its times, one row per slot in the report's order (also
// the one without chunks), a color per rung, escaping of every text from the
// report, an empty run, the notes and the axis.
#include "cli/timeline_svg.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "report_fixture.hpp"
#include "svg_elements.hpp"

namespace ladder::test {
namespace {

cli::ReportView fixture_view() { return cli::report_view_from_json(hand_built_report()); }

double number(const Attributes& a, const std::string& key) {
    const auto it = a.find(key);
    if (it == a.end()) {
        ADD_FAILURE() << "no attribute " << key;
        return -1;
    }
    return std::stod(it->second);
}

TEST(TimelineSvg, OneBarPerChunk) {
    const std::string svg = cli::render_timeline_svg(fixture_view());
    const auto bars = elements_of_class(svg, "rect", "chunk");
    ASSERT_EQ(bars.size(), 6u);
    std::set<std::string> seen;
    for (const auto& b : bars) seen.insert(b.at("data-rung-index") + "/" + b.at("data-chunk"));
    EXPECT_EQ(seen, (std::set<std::string>{"0/0", "0/1", "0/2", "1/0", "1/1", "1/2"}));
}

TEST(TimelineSvg, OneRowPerSlotInSlotOrderIncludingTheIdleOne) {
    const std::string svg = cli::render_timeline_svg(fixture_view());
    EXPECT_EQ(texts_of_class(svg, "slot-label"), (std::vector<std::string>{"cpu0:svt", "cpu1:svt", "gpu0:nvenc"}));
    const auto rows = elements_of_class(svg, "g", "row");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[2].at("data-slot"), "gpu0:nvenc");
    // Busy share at the end of each row, in the same order.
    EXPECT_EQ(texts_of_class(svg, "busy"), (std::vector<std::string>{"81%", "56%", "0%"}));
    // Each bar sits in its slot's row: same lane y as the row's label order says.
    const auto lanes = elements_of_class(svg, "rect", "lane");
    ASSERT_EQ(lanes.size(), 3u);
    for (const auto& b : elements_of_class(svg, "rect", "chunk")) {
        const std::size_t row = b.at("data-slot") == "cpu0:svt" ? 0 : 1;
        EXPECT_EQ(b.at("y"), lanes[row].at("y")) << b.at("data-slot");
    }
}

TEST(TimelineSvg, BarsArePlacedByStartAndEndTime) {
    const cli::ReportView view = fixture_view();
    const cli::TimelineGeometry g = cli::timeline_geometry(view);
    EXPECT_DOUBLE_EQ(g.seconds, 8.0);  // the wall time: every chunk ends before it
    ASSERT_GT(g.plot_width, 100.0);
    const double per_second = g.plot_width / 8.0;

    const auto bars = elements_of_class(cli::render_timeline_svg(view), "rect", "chunk");
    ASSERT_EQ(bars.size(), 6u);
    for (const auto& b : bars) {
        // Times from the fixture, found by rung and chunk (not from the SVG).
        const auto& c = *std::find_if(view.chunks.begin(), view.chunks.end(), [&](const cli::ViewChunk& c) {
            return std::to_string(c.rung) == b.at("data-rung-index") && std::to_string(c.index) == b.at("data-chunk");
        });
        SCOPED_TRACE(b.at("data-rung-index") + "/" + b.at("data-chunk"));
        EXPECT_NEAR(number(b, "x"), g.plot_left + c.start_seconds * per_second, 0.006);
        EXPECT_NEAR(number(b, "width"), (c.end_seconds - c.start_seconds) * per_second, 0.006);
    }
    // Independently of the geometry: the 2 s chunk is twice as wide as a 1 s
    // one, and the chunk starting at 0 s starts where the 1 s one starting at
    // 0.5 s starts minus half that width.
    auto bar = [&](const char* rung, const char* chunk) {
        return *std::find_if(bars.begin(), bars.end(), [&](const Attributes& b) {
            return b.at("data-rung-index") == rung && b.at("data-chunk") == chunk;
        });
    };
    const double one_second = number(bar("1", "0"), "width");
    EXPECT_NEAR(number(bar("0", "0"), "width"), 2 * one_second, 0.02);
    EXPECT_NEAR(number(bar("0", "2"), "width"), 3.5 * one_second, 0.02);
    EXPECT_NEAR(number(bar("1", "0"), "x") - number(bar("0", "0"), "x"), 0.5 * one_second, 0.02);
}

TEST(TimelineSvg, TheAxisCoversTheLastChunkWhenItEndsAfterTheWallTime) {
    nlohmann::json report = hand_built_report();
    report["chunks"][4]["end_seconds"] = 10.0;
    EXPECT_DOUBLE_EQ(cli::timeline_geometry(cli::report_view_from_json(report)).seconds, 10.0);
}

TEST(TimelineSvg, OneColorPerRung) {
    const std::string svg = cli::render_timeline_svg(fixture_view());
    std::map<std::string, std::set<std::string>> fills;  // rung index → fills of its bars
    for (const auto& b : elements_of_class(svg, "rect", "chunk")) fills[b.at("data-rung-index")].insert(b.at("fill"));
    ASSERT_EQ(fills.size(), 2u);
    ASSERT_EQ(fills["0"].size(), 1u);
    ASSERT_EQ(fills["1"].size(), 1u);
    EXPECT_NE(*fills["0"].begin(), *fills["1"].begin());
    EXPECT_EQ(*fills["0"].begin(), cli::rung_color(0));
    // The legend uses the same colors, with size and target rate.
    EXPECT_NE(svg.find("fill=\"" + cli::rung_color(1) + "\"/><text"), std::string::npos);
    EXPECT_NE(svg.find(">720p 1280x720, 2500 kb/s</text>"), std::string::npos);
}

TEST(TimelineSvg, ColorsStayDistinctPastThePalette) {
    std::set<std::string> colors;
    for (std::size_t i = 0; i < 40; ++i) colors.insert(cli::rung_color(i));
    EXPECT_EQ(colors.size(), 40u);
}

TEST(TimelineSvg, EscapesEveryTextFromTheReport) {
    const std::string svg = cli::render_timeline_svg(fixture_view());
    EXPECT_EQ(svg.find("a<b"), std::string::npos);
    EXPECT_EQ(svg.find("<1>"), std::string::npos);
    EXPECT_EQ(svg.find("'s.mp4"), std::string::npos);
    const std::string rung = "a&lt;b&amp;&quot;c&quot;";
    EXPECT_EQ(count_of(svg, "data-rung=\"" + rung + "\""), 4u);  // 3 bars + the legend entry
    EXPECT_NE(svg.find("<title>" + rung + " chunk 1 on cpu0:svt, 2.00-3.00 s, 50 frames, 30 kB</title>"),
              std::string::npos);
    EXPECT_NE(svg.find("clip &lt;1&gt;&apos;s.mp4 — wall 8.00 s, 2 rungs, 3 slots"), std::string::npos);
}

TEST(TimelineSvg, TooltipsSayWhatTheBarIs) {
    const std::string svg = cli::render_timeline_svg(fixture_view());
    EXPECT_NE(svg.find("<title>720p chunk 2 on cpu0:svt, 3.00-6.50 s, 50 frames, 150 kB</title>"), std::string::npos);
    EXPECT_NE(svg.find(" chunk 2 on cpu1:svt, 4.00-5.00 s, 50 frames, 900 B</title>"), std::string::npos);
}

TEST(TimelineSvg, NotesTellWhatIsNotDrawn) {
    const auto notes = texts_of_class(cli::render_timeline_svg(fixture_view()), "note");
    EXPECT_EQ(notes, (std::vector<std::string>{"decode: 1.25 s busy on cpu",
                                               "1 failed attempt: not drawn (the report has no times for them)"}));
}

TEST(TimelineSvg, AnEmptyChunkListGivesRowsWithoutBars) {
    nlohmann::json report = hand_built_report();
    report["chunks"] = nlohmann::json::array();
    const std::string svg = cli::render_timeline_svg(cli::report_view_from_json(report));
    EXPECT_TRUE(elements_of_class(svg, "rect", "chunk").empty());
    EXPECT_EQ(texts_of_class(svg, "slot-label").size(), 3u);
    const auto notes = texts_of_class(svg, "note");
    EXPECT_NE(std::find(notes.begin(), notes.end(), "no chunks in this report"), notes.end());
}

TEST(TimelineSvg, AxisTicksInSeconds) {
    const std::string svg = cli::render_timeline_svg(fixture_view());
    const auto labels = texts_of_class(svg, "tick-label");
    EXPECT_EQ(labels, (std::vector<std::string>{"0 s", "1 s", "2 s", "3 s", "4 s", "5 s", "6 s", "7 s", "8 s"}));
    nlohmann::json short_run = hand_built_report();
    short_run["wall_seconds"] = 0.9;
    short_run["chunks"] = nlohmann::json::array();
    const auto short_labels =
        texts_of_class(cli::render_timeline_svg(cli::report_view_from_json(short_run)), "tick-label");
    ASSERT_FALSE(short_labels.empty());
    EXPECT_EQ(short_labels.front(), "0.0 s");
    EXPECT_EQ(short_labels.back(), "0.8 s");
}

TEST(TimelineSvg, SameReportSameBytes) {
    EXPECT_EQ(cli::render_timeline_svg(fixture_view()), cli::render_timeline_svg(fixture_view()));
}

}  // namespace
}  // namespace ladder::test
