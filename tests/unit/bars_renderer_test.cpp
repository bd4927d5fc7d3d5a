// Live terminal bars (and the plain renderer, mode choice and report
// helpers of cli/): frames contain every rung with a percent, redraws move
// the cursor up over the old frame, notes print above it, and finish()
// leaves the terminal after a complete final frame and a newline.
#include "cli/bars_renderer.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/progress_renderer.hpp"
#include "cli/run_report.hpp"

using namespace std::chrono_literals;
using ladder::cli::BarsOptions;
using ladder::cli::BarsProgressRenderer;
using ladder::cli::PlainProgressRenderer;
using ladder::cli::ProgressMode;
using ladder::cli::ProgressModel;
using ladder::cli::RunOutcome;
using ladder::engine::ChunkDone;
using ladder::engine::NoteLevel;
using ladder::engine::RungState;

namespace {

std::string read_all(std::FILE* f) {
    std::fflush(f);
    std::rewind(f);
    std::string all;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) all.append(buf, n);
    return all;
}

// Waits until `text` was written to `f` (read with pread: the writer's file
// position and buffer are left alone; the renderers flush every line).
bool wait_for_text(std::FILE* f, const std::string& text, std::chrono::milliseconds timeout = 5s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
        std::string all;
        char buf[4096];
        for (off_t at = 0;;) {
            const ssize_t n = ::pread(fileno(f), buf, sizeof buf, at);
            if (n <= 0) break;
            all.append(buf, static_cast<std::size_t>(n));
            at += n;
        }
        if (all.find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(5ms);
    }
    return false;
}

ChunkDone done(int rung, const std::string& name, int chunk, std::int64_t frames, const std::string& slot,
               double seconds) {
    ChunkDone d;
    d.rung = rung;
    d.rung_name = name;
    d.chunk = chunk;
    d.frames = frames;
    d.bytes = 1000;
    d.slot = slot;
    d.encode_seconds = seconds;
    return d;
}

// The screen after interpreting the subset of ANSI the renderer uses: a
// tiny terminal emulator (\r, \n, ESC[nA, ESC[2K, ESC[J).
std::vector<std::string> emulate(const std::string& out) {
    std::vector<std::string> screen(1);
    std::size_t row = 0, col = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char c = out[i];
        if (c == '\x1b' && i + 1 < out.size() && out[i + 1] == '[') {
            std::size_t j = i + 2;
            int n = 0;
            bool has_n = false;
            while (j < out.size() && std::isdigit(static_cast<unsigned char>(out[j]))) {
                n = n * 10 + (out[j] - '0');
                has_n = true;
                ++j;
            }
            const char cmd = out[j];
            if (cmd == 'A') row -= std::min<std::size_t>(row, static_cast<std::size_t>(has_n ? n : 1));
            if (cmd == 'K') screen[row].clear();  // 2K: the whole line
            if (cmd == 'J') {
                screen[row].resize(std::min(screen[row].size(), col));
                screen.resize(row + 1);
            }
            i = j;
            continue;
        }
        if (c == '\r') {
            col = 0;
        } else if (c == '\n') {
            ++row;
            col = 0;
            if (screen.size() <= row) screen.resize(row + 1);
        } else {
            if (screen[row].size() <= col) screen[row].resize(col + 1, ' ');
            screen[row][col++] = c;
        }
    }
    return screen;
}

TEST(BarsRenderer, FrameShowsRungsSlotsAndDecode) {
    ProgressModel m;
    m.rung_state(0, "1080p", RungState::pending, 0.0);
    m.rung_state(1, "360p", RungState::pending, 0.0);
    m.decode_progress(100, 200, 1.0);
    m.chunk_started(0, "1080p", 0, "cpu0:svt", 1.0);
    m.chunk_done(done(1, "360p", 0, 50, "cpu1:svt", 1.0), 2.0);
    m.rung_state(1, "360p", RungState::running, 2.0);
    m.chunk_started(1, "360p", 1, "cpu1:svt", 2.0);
    const auto lines = BarsProgressRenderer::frame_lines(m, 4.0, 100);
    ASSERT_EQ(lines.size(), 1u + 2u + 2u + 1u);  // header, rungs, slots, decode
    for (const auto& l : lines) EXPECT_LT(l.size(), 100u) << l;
    EXPECT_NE(lines[1].find("1080p"), std::string::npos);
    EXPECT_NE(lines[1].find("  0%"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("on cpu0:svt"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("starting"), std::string::npos) << lines[1];
    EXPECT_NE(lines[2].find("360p"), std::string::npos);
    EXPECT_NE(lines[2].find(" 25%"), std::string::npos) << lines[2];   // 50 of 200
    EXPECT_NE(lines[2].find("16.7 fps"), std::string::npos) << lines[2];  // 50 frames in 3 s since its start
    EXPECT_NE(lines[2].find("running"), std::string::npos) << lines[2];
    EXPECT_NE(lines[3].find("cpu0:svt"), std::string::npos);
    EXPECT_NE(lines[3].find("busy  75%"), std::string::npos) << lines[3];  // 3 of 4 s
    EXPECT_NE(lines[3].find("1080p chunk 0"), std::string::npos) << lines[3];
    EXPECT_NE(lines[4].find("busy  75%"), std::string::npos) << lines[4];  // 1 done + 2 running, of 4 s
    EXPECT_NE(lines[5].find("decode"), std::string::npos);
    EXPECT_NE(lines[5].find(" 50%"), std::string::npos) << lines[5];
    // A narrow terminal: lines are cut, never wrapped.
    for (const auto& l : BarsProgressRenderer::frame_lines(m, 4.0, 30)) EXPECT_LT(l.size(), 30u) << l;
}

// Under budget each pass goes over the source again: the header says which
// pass, and a rung's percent is of that pass, not stuck at 100 after the first.
TEST(BarsRenderer, APassStartsTheRungsCountsAgainAndIsNamedInTheHeader) {
    ProgressModel m;
    m.rung_state(0, "360p", RungState::pending, 0.0);
    m.decode_progress(200, 200, 1.0);
    m.pass_started({1, false, {"360p"}});
    m.chunk_done(done(0, "360p", 0, 200, "cpu0:svt", 1.0), 2.0);
    EXPECT_EQ(*m.percent(m.rungs()[0]), 100.0);
    m.pass_started({2, false, {"360p", "720p"}});
    EXPECT_EQ(m.pass_text(), "pass 2, searching 360p 720p");
    EXPECT_EQ(*m.percent(m.rungs()[0]), 0.0);
    m.chunk_done(done(0, "360p", 0, 50, "cpu0:svt", 1.0), 3.0);
    EXPECT_EQ(*m.percent(m.rungs()[0]), 25.0);
    const auto lines = BarsProgressRenderer::frame_lines(m, 4.0, 100);
    EXPECT_NE(lines[0].find("pass 2, searching 360p 720p"), std::string::npos) << lines[0];
    m.pass_started({3, true, {}});
    EXPECT_EQ(m.pass_text(), "pass 3, writing the outputs");
    ProgressModel one;
    EXPECT_EQ(one.pass_text(), "") << "a run of one pass names none";
}

TEST(BarsRenderer, RedrawsInPlaceAndEndsWithANewline) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
        BarsProgressRenderer r(f, BarsOptions{std::chrono::milliseconds(20), 100});
        r.rung_state(0, "720p", RungState::pending);
        r.rung_state(1, "480p", RungState::pending);
        r.decode_progress(50, 100);
        EXPECT_TRUE(wait_for_text(f, "decode")) << "a first frame";
        std::vector<std::jthread> workers;
        for (int rung = 0; rung < 2; ++rung)
            workers.emplace_back([&r, rung] {
                const std::string name = rung == 0 ? "720p" : "480p";
                const std::string slot = "cpu" + std::to_string(rung) + ":svt";
                for (int c = 0; c < 4; ++c) {
                    r.chunk_started(rung, name, c, slot);
                    std::this_thread::sleep_for(15ms);
                    r.chunk_done(done(rung, name, c, 25, slot, 0.015));
                }
            });
        workers.clear();
        r.note(NoteLevel::warning, "a warning in the middle");
        r.chunk_failed("720p", 9, "cpu0:svt", "it broke", "error");
        r.decode_progress(100, 100);
        r.rung_state(0, "720p", RungState::completed);
        std::this_thread::sleep_for(60ms);
        r.finish(RunOutcome{0, "", "", 1.0, std::string("out/report.json")});
        r.finish(RunOutcome{0, "", "", 1.0, std::nullopt});  // once only
    }
    const std::string out = read_all(f);
    std::fclose(f);
    EXPECT_NE(out.find("720p"), std::string::npos);
    EXPECT_NE(out.find("480p"), std::string::npos);
    EXPECT_TRUE(std::regex_search(out, std::regex("\\d+%"))) << "a percent";
    EXPECT_TRUE(std::regex_search(out, std::regex("\x1b\\[\\d+A"))) << "cursor-up redraws";
    EXPECT_NE(out.find("\x1b[2K"), std::string::npos) << "lines cleared before they are drawn";
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.back(), '\n') << "after finish the output ends with a newline";

    // What the terminal shows at the end: the note and the failure above one
    // final frame (no leftovers of older frames), then the report line.
    const auto screen = emulate(out);
    std::vector<std::string> shown;
    for (const auto& l : screen)
        if (!l.empty()) shown.push_back(l);
    ASSERT_GE(shown.size(), 8u);
    int headers = 0;
    for (const auto& l : shown) headers += l.rfind("ladder  ", 0) == 0 ? 1 : 0;
    EXPECT_EQ(headers, 1) << "one frame on screen";
    EXPECT_EQ(shown[0], "ladder: warning: a warning in the middle");
    EXPECT_NE(shown[1].find("chunk 9 failed on cpu0:svt: it broke"), std::string::npos) << shown[1];
    const std::string& last_rung = shown[3];
    EXPECT_NE(shown[3].find("720p"), std::string::npos) << shown[3];
    EXPECT_NE(shown[3].find("100%"), std::string::npos) << shown[3];
    EXPECT_NE(shown[3].find("completed"), std::string::npos) << shown[3];
    EXPECT_NE(shown[4].find("480p"), std::string::npos) << last_rung;
    EXPECT_NE(shown[4].find("100%"), std::string::npos) << shown[4];  // 100 of 100 frames
    EXPECT_NE(shown[7].find("decode"), std::string::npos) << shown[7];
    EXPECT_EQ(shown.back(), "ladder: report written to out/report.json");
}

TEST(BarsRenderer, NothingDrawnBeforeTheLadderIsKnown) {
    std::FILE* f = std::tmpfile();
    {
        BarsProgressRenderer r(f, BarsOptions{std::chrono::milliseconds(10), 80});
        std::this_thread::sleep_for(50ms);
        r.finish(RunOutcome{2, "no such file", "ladder: error: no such file", 0.1, std::nullopt});
    }
    EXPECT_EQ(read_all(f), "ladder: error: no such file\n");
    std::fclose(f);
}

TEST(BarsRenderer, StopsItsThreadWithoutFinish) {
    std::FILE* f = std::tmpfile();
    {
        BarsProgressRenderer r(f, BarsOptions{std::chrono::milliseconds(10), 80});
        r.rung_state(0, "720p", RungState::pending);
        std::this_thread::sleep_for(30ms);
    }  // the destructor joins
    EXPECT_NE(read_all(f).find("720p"), std::string::npos);
    std::fclose(f);
}

TEST(PlainRenderer, EventLinesAndSummaryWithoutAnsi) {
    std::FILE* f = std::tmpfile();
    {
        PlainProgressRenderer r(f, false, std::chrono::milliseconds(20));
        r.note(NoteLevel::info, "starting");
        r.rung_state(0, "720p", RungState::pending);
        r.decode_progress(10, 50);
        r.chunk_started(0, "720p", 0, "cpu0:svt");
        r.chunk_done(done(0, "720p", 0, 25, "cpu0:svt", 0.5));
        r.rung_state(0, "720p", RungState::running);
        EXPECT_TRUE(wait_for_text(f, "progress: decode 20% | 720p 50%")) << "a periodic summary line";
        r.chunk_failed("720p", 1, "cpu0:svt", "boom", "crash");
        r.decode_progress(50, 50);
        r.finish(RunOutcome{1, "x", "ladder: error: the run failed: x", 1.0, std::nullopt});
    }
    const std::string out = read_all(f);
    std::fclose(f);
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << "no ANSI";
    EXPECT_NE(out.find("ladder: starting\n"), std::string::npos) << out;
    EXPECT_NE(out.find("rung 720p running"), std::string::npos) << out;
    EXPECT_NE(out.find("progress: decode 20% | 720p 50%"), std::string::npos) << out;
    EXPECT_NE(out.find("warning: rung 720p chunk 1 failed on cpu0:svt (encoder process crashed): boom"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("source decoded: 50 frames"), std::string::npos) << out;
    const std::string tail = "\nladder: error: the run failed: x\n";
    ASSERT_GE(out.size(), tail.size());
    EXPECT_EQ(out.substr(out.size() - tail.size()), tail) << "the error is the last line";
}

TEST(PlainRenderer, QuietKeepsWarningsAndErrors) {
    std::FILE* f = std::tmpfile();
    {
        PlainProgressRenderer r(f, true, std::chrono::milliseconds(10));
        r.note(NoteLevel::info, "info line");
        r.note(NoteLevel::warning, "warn line");
        r.rung_state(0, "720p", RungState::running);
        r.chunk_done(done(0, "720p", 0, 25, "cpu0:svt", 0.5));
        std::this_thread::sleep_for(40ms);
        r.chunk_failed("720p", 1, "cpu0:svt", "boom", "error");
        r.finish(RunOutcome{0, "", "", 1.0, std::string("r.json")});
    }
    const std::string out = read_all(f);
    std::fclose(f);
    EXPECT_TRUE(std::regex_match(out, std::regex("ladder: warning: warn line\n"
                                                 "\\[ *[0-9.]+s\\] ladder: warning: rung 720p chunk 1 failed on "
                                                 "cpu0:svt: boom\n")))
        << "only the warnings: " << out;
}

TEST(ProgressMode, AutoPicksBarsOnlyOnACapableTerminal) {
    using ladder::cli::resolve_progress_mode;
    EXPECT_EQ(resolve_progress_mode("auto", true, "xterm-256color"), ProgressMode::bars);
    EXPECT_EQ(resolve_progress_mode("auto", true, "dumb"), ProgressMode::plain);
    EXPECT_EQ(resolve_progress_mode("auto", true, nullptr), ProgressMode::plain);
    EXPECT_EQ(resolve_progress_mode("auto", false, "xterm"), ProgressMode::plain);
    EXPECT_EQ(resolve_progress_mode("bars", false, nullptr), ProgressMode::bars);
    EXPECT_EQ(resolve_progress_mode("json", true, "xterm"), ProgressMode::json);
    EXPECT_EQ(resolve_progress_mode("none", true, "xterm"), ProgressMode::none);
    EXPECT_THROW(resolve_progress_mode("fancy", true, "xterm"), std::invalid_argument);
}

TEST(RunReport, PathsAndPartialReport) {
    using ladder::cli::report_path_for;
    EXPECT_EQ(report_path_for("", "out"), std::filesystem::path("out/report.json"));
    EXPECT_EQ(report_path_for("none", "out"), std::nullopt);
    EXPECT_EQ(report_path_for("/tmp/r.json", "out"), std::filesystem::path("/tmp/r.json"));

    ladder::cli::ReportCollector c;
    c.rung_state(0, "720p", RungState::pending);
    c.rung_state(1, "360p", RungState::pending);
    c.chunk_done(done(1, "360p", 1, 25, "cpu1:svt", 0.0));
    c.chunk_done(done(1, "360p", 0, 25, "cpu0:svt", 0.0));
    c.chunk_failed("720p", 0, "cpu0:svt", "boom", "hang");
    const nlohmann::json j = c.partial_report_json("in.mp4", 3.0, "the run failed");
    EXPECT_EQ(j["ok"], false);
    EXPECT_EQ(j["partial"], true);
    EXPECT_EQ(j["error"], "the run failed");
    ASSERT_EQ(j["rungs"].size(), 2u);
    EXPECT_EQ(j["rungs"][1]["chunks"], 2);
    EXPECT_EQ(j["rungs"][1]["frames"], 50);
    ASSERT_EQ(j["chunks"].size(), 2u);
    EXPECT_EQ(j["chunks"][0]["index"], 0) << "chunks in order";
    EXPECT_FALSE(j["chunks"][0].contains("first_frame")) << "unknown from the events";
    ASSERT_EQ(j["retries"].size(), 1u);
    EXPECT_EQ(j["retries"][0]["slot"], "cpu0:svt");
    EXPECT_EQ(j["retries"][0]["cause"], "hang");

    // Written atomically, pretty, parseable.
    const auto dir = std::filesystem::temp_directory_path() / ("ladder-report-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    ladder::cli::write_report(dir / "sub" / "r.json", j, true);
    std::ifstream in(dir / "sub" / "r.json");
    const nlohmann::json back = nlohmann::json::parse(in);
    EXPECT_EQ(back, j);
    EXPECT_THROW(ladder::cli::write_report(dir / "missing" / "r.json", j, false), std::runtime_error);
    std::filesystem::remove_all(dir);

    // A run of passes goes over every chunk again: the report of a failed
    // one lists the chunks of the pass it failed in, each once.
    c.pass_started({2, false, {"360p"}});
    c.chunk_done(done(1, "360p", 0, 25, "cpu0:svt", 0.0));
    const nlohmann::json again = c.partial_report_json("in.mp4", 4.0, "the run failed");
    ASSERT_EQ(again["chunks"].size(), 1u);
    EXPECT_EQ(again["rungs"][1]["chunks"], 1);
}

}  // namespace
