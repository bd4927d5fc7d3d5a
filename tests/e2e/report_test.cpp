// End-to-end: `ladder report` on the report.json of a real encode (two rungs,
// two CPU slots). The SVG is read back with an independent XML parser
// (python3's xml.dom.minidom): it must parse, have one chunk bar per chunk of
// the report with the same rung, chunk and slot, and one row per slot. Bad
// reports exit 2 with one line naming the file and what is wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Prints the chunk bars' data attributes and the row labels as JSON.
constexpr const char* kReadSvg = R"(import json, sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
rects = [r for r in d.getElementsByTagName("rect") if r.getAttribute("class") == "chunk"]
labels = [t for t in d.getElementsByTagName("text") if t.getAttribute("class") == "slot-label"]
print(json.dumps({
    "chunks": [[r.getAttribute("data-rung"), int(r.getAttribute("data-chunk")), r.getAttribute("data-slot")]
               for r in rects],
    "titles": [r.getElementsByTagName("title")[0].firstChild.data for r in rects],
    "slots": [t.firstChild.data for t in labels]}))
)";

std::size_t line_count(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class ReportCommand : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        const fs::path src = make_clip("report", {320, 240, "25", 3.0, false, ""});
        out_ = fresh_dir("report-encode");
        const ProcessResult r =
            run_ladder({"encode", src.string(), "-o", out_.string(), "--format", "mp4", "--rung", "240p=320x240@400",
                        "--rung", "120p=160x120@150", "--cpu-slots", "2", "--preset", "12", "--segment-seconds",
                        "0.5", "-q"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        summary_ = r.out;
    }

    static inline fs::path out_;
    static inline std::string summary_;  // the encode's stdout
};

// Each rung's standing against its target, from its file's video packets
// (read by ffprobe), must be what report.json and the summary line say.
TEST_F(ReportCommand, EachRungSaysHowFarFromItsTargetItLanded) {
    std::ifstream in(out_ / "report.json");
    const json report = json::parse(in);
    for (const json& rung : report.at("rungs")) {
        const std::string name = rung.at("name");
        const std::vector<double> sizes = video_packet_sizes(rung.at("output").get<std::string>());
        double bytes = 0;
        for (double b : sizes) bytes += b;
        const auto packets = static_cast<long>(sizes.size());
        ASSERT_EQ(packets, rung.at("frames").get<long>()) << name;
        const double kbps = bytes * 8 / 1000 / (static_cast<double>(packets) / 25);
        const int target = rung.at("bitrate_kbps");
        const double off = kbps / target - 1;
        // The report counts each frame's 2-byte temporal delimiter, which an
        // MP4 sample leaves out: 0.4 kb/s at 25 fps, 0.27% of 150 kb/s.
        EXPECT_NEAR(rung.at("target_off_percent").get<double>(), off * 100, 0.5) << name;
        if (std::abs(std::abs(off) - 0.05) < 0.005) continue;  // too near the band's edge to judge here
        const std::string verdict = off > 0.05 ? "over" : off < -0.05 ? "under" : "on_target";
        EXPECT_EQ(rung.at("rate_verdict"), verdict) << name << ": " << kbps << " kb/s of " << target;
        const auto at = summary_.find("  " + name + "  ");
        ASSERT_NE(at, std::string::npos) << summary_;
        const std::string line = summary_.substr(at, summary_.find('\n', at) - at);
        const std::string note = fmt::format("% {} its {} kb/s target", verdict, target);
        EXPECT_EQ(line.find(note) != std::string::npos, verdict != "on_target") << line;
    }
}

// The largest chunk's rate over the rung's, from the file's packets cut at
// the chunks report.json lists (chunks of at least half the first one's
// frames), is the report's peak_over_average.
TEST_F(ReportCommand, EachRungsPeakChunkOverItsAverageIsTheFilesOwn) {
    std::ifstream in(out_ / "report.json");
    const json report = json::parse(in);
    for (std::size_t i = 0; i < report.at("rungs").size(); ++i) {
        const json& rung = report.at("rungs").at(i);
        const std::vector<double> packet = video_packet_sizes(rung.at("output").get<std::string>());
        ASSERT_FALSE(packet.empty()) << rung.dump();
        double total = 0, peak = 0;
        for (double b : packet) total += b;
        long first_frames = 0;
        for (const json& c : report.at("chunks")) {
            if (c.at("rung").get<std::size_t>() != i) continue;
            const long first = c.at("first_frame"), frames = c.at("frames");
            if (first == 0) first_frames = frames;
            ASSERT_LE(first + frames, static_cast<long>(packet.size()));
            if (frames * 2 < first_frames) continue;
            double bytes = 0;
            for (long f = first; f < first + frames; ++f) bytes += packet[static_cast<std::size_t>(f)];
            peak = std::max(peak, bytes / frames);
        }
        const double expected = peak / (total / static_cast<double>(packet.size()));
        // 2 bytes a frame apart (the report counts temporal delimiters).
        EXPECT_NEAR(rung.at("peak_over_average").get<double>(), expected, 0.02) << rung.at("name");
        EXPECT_GT(expected, 1.0);
    }
}

TEST_F(ReportCommand, DrawsEveryChunkOfARealRun) {
    const fs::path dir = fresh_dir("report-draw");
    const fs::path svg = dir / "t.svg", html = dir / "t.html";
    const ProcessResult r =
        run_ladder({"report", (out_ / "report.json").string(), "--svg", svg.string(), "--html", html.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");

    const ProcessResult parsed = run_process({"python3", "-c", kReadSvg, svg.string()});
    ASSERT_EQ(parsed.exit_code, 0) << "the SVG is not well-formed XML: " << parsed.err;
    const json drawn = json::parse(parsed.out);

    const json report = json::parse(read_text(out_ / "report.json"));
    std::vector<std::tuple<std::string, int, std::string>> expected, got;
    for (const auto& c : report.at("chunks"))
        expected.emplace_back(report.at("rungs").at(c.at("rung").get<std::size_t>()).at("name"), c.at("index"),
                              c.at("slot"));
    for (const auto& c : drawn.at("chunks")) got.emplace_back(c.at(0), c.at(1), c.at(2));
    ASSERT_EQ(expected.size(), 12u);  // 3 s in 0.5 s chunks, two rungs
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected);
    for (const auto& t : drawn.at("titles")) EXPECT_NE(t.get<std::string>().find(" frames, "), std::string::npos) << t;

    std::vector<std::string> slots;
    for (const auto& s : report.at("slots")) slots.push_back(s.at("label"));
    EXPECT_EQ(slots.size(), 2u);
    EXPECT_EQ(drawn.at("slots").get<std::vector<std::string>>(), slots);

    // The page carries the very same picture, and a table row per rung and slot.
    const std::string page = read_text(html);
    EXPECT_NE(page.find(read_text(svg)), std::string::npos);
    for (const char* rung : {"240p", "120p"})
        EXPECT_NE(page.find(std::string("<tr data-rung=\"") + rung + "\">"), std::string::npos) << rung;
    for (const auto& s : slots) EXPECT_NE(page.find("<tr data-slot=\"" + s + "\">"), std::string::npos) << s;

    // Same report, same bytes.
    const fs::path again = dir / "again.svg";
    ASSERT_EQ(run_ladder({"report", (out_ / "report.json").string(), "--svg", again.string()}).exit_code, 0);
    EXPECT_EQ(read_text(again), read_text(svg));
}

TEST_F(ReportCommand, BadReportsExitTwoWithOneLine) {
    const fs::path dir = fresh_dir("report-bad");
    const fs::path svg = dir / "t.svg";
    std::ofstream(dir / "notes.txt") << "this is not a report\n";
    std::ofstream(dir / "other.json") << R"({"ok": true, "rungs": []})";
    struct Case {
        fs::path file;
        std::string says;
    };
    for (const Case& c : {Case{dir / "notes.txt", "not JSON: parse error"},
                          Case{dir / "other.json", "not a ladder report: no 'chunks' array"},
                          Case{dir / "missing.json", "cannot open: No such file or directory"}}) {
        SCOPED_TRACE(c.file);
        const ProcessResult r = run_ladder({"report", c.file.string(), "--svg", svg.string()});
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(line_count(r.err), 1u) << r.err;
        EXPECT_EQ(r.err.rfind("ladder: error: " + c.file.string() + ": " + c.says, 0), 0u) << r.err;
        EXPECT_FALSE(fs::exists(svg));
    }
}

TEST_F(ReportCommand, NeedsAnOutputAndSaysWhenItCannotWriteOne) {
    const std::string report = (out_ / "report.json").string();
    const ProcessResult none = run_ladder({"report", report});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("ladder: error: "), std::string::npos) << none.err;

    const fs::path nowhere = fresh_dir("report-nowhere") / "no-such-folder" / "t.svg";
    const ProcessResult unwritable = run_ladder({"report", report, "--svg", nowhere.string()});
    EXPECT_EQ(unwritable.exit_code, 1);
    EXPECT_EQ(line_count(unwritable.err), 1u) << unwritable.err;
    EXPECT_NE(unwritable.err.find(nowhere.parent_path().string()), std::string::npos) << unwritable.err;
}

// The picture never replaces the report it is drawn from, under any name.
TEST_F(ReportCommand, NeverWritesOverTheReportItReads) {
    const fs::path dir = fresh_dir("report-over-itself");
    const fs::path copy = dir / "report.json";
    fs::copy_file(out_ / "report.json", copy);
    const std::string before = read_text(copy);
    for (const char* flag : {"--svg", "--html"}) {
        const ProcessResult r = run_ladder({"report", copy.string(), flag, (dir / "." / "report.json").string()});
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_EQ(line_count(r.err), 1u) << r.err;
        EXPECT_EQ(read_text(copy), before);
    }
}

}  // namespace
}  // namespace ladder::test
