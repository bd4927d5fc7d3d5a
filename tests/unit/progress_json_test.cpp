// `--progress json`: every event is one JSON object on one line, with
// "event", "t" and "v"; lines written from many threads never interleave;
// decode_progress is throttled except its last report; the run ends with
// job_done or job_failed.
#include "cli/json_progress_renderer.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/stderr_capture.hpp"

using ladder::cli::JsonProgressRenderer;
using ladder::cli::StderrCapture;
using ladder::cli::RunOutcome;
using ladder::engine::ChunkDone;
using ladder::engine::NoteLevel;
using ladder::engine::RungState;

namespace {

struct TmpFile {
    std::FILE* f = std::tmpfile();
    ~TmpFile() {
        if (f) std::fclose(f);
    }
    std::vector<std::string> lines() const {
        std::fflush(f);
        std::rewind(f);
        std::string all;
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) all.append(buf, n);
        std::vector<std::string> out;
        std::size_t from = 0;
        for (std::size_t nl; (nl = all.find('\n', from)) != std::string::npos; from = nl + 1)
            out.push_back(all.substr(from, nl - from));
        EXPECT_EQ(from, all.size()) << "the output ends with a complete line";
        return out;
    }
};

std::vector<nlohmann::json> parse_all(const std::vector<std::string>& lines) {
    std::vector<nlohmann::json> out;
    for (const auto& line : lines) {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "not JSON: " << line << " (" << e.what() << ")";
            continue;
        }
        EXPECT_TRUE(j.is_object()) << line;
        EXPECT_TRUE(j.contains("event") && j["event"].is_string()) << line;
        EXPECT_TRUE(j.contains("t") && j["t"].is_number()) << line;
        EXPECT_EQ(j.value("v", 0), 1) << line;
        if (j.contains("t")) {
            const double t = j["t"].get<double>();
            EXPECT_GE(t, 0.0);
            EXPECT_NEAR(t * 1000.0, std::round(t * 1000.0), 1e-6) << "t has at most 3 decimals: " << line;
        }
        out.push_back(std::move(j));
    }
    return out;
}

TEST(ProgressJson, EventsFromManyThreadsAreWholeLines) {
    TmpFile tmp;
    ASSERT_NE(tmp.f, nullptr);
    constexpr int kThreads = 8;
    constexpr int kChunks = 200;
    {
        JsonProgressRenderer r(tmp.f);
        for (int rung = 0; rung < kThreads; ++rung)
            r.rung_state(rung, "rung" + std::to_string(rung), RungState::pending);
        std::vector<std::jthread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&r, t] {
                const std::string name = "rung" + std::to_string(t);
                // Long strings make a torn write easy to see.
                const std::string slot = "cpu" + std::to_string(t) + ":svt" + std::string(300, 'x');
                r.rung_state(t, name, RungState::running);
                for (int c = 0; c < kChunks; ++c) {
                    r.chunk_started(t, name, c, slot);
                    if (c % 50 == 7) r.chunk_failed(name, c, slot, "injected \"quote\" and\nnewline", "error");
                    ChunkDone d;
                    d.rung = t;
                    d.rung_name = name;
                    d.chunk = c;
                    d.frames = 25;
                    d.bytes = 1000u + static_cast<std::size_t>(c);
                    d.slot = slot;
                    d.encode_seconds = 0.0123456;
                    r.chunk_done(d);
                    if (c % 40 == 0) r.note(NoteLevel::warning, "note from " + name);
                }
                r.rung_state(t, name, RungState::completed);
            });
        }
        std::jthread decoder([&r] {
            for (int f = 1; f <= 1000; ++f) r.decode_progress(f, f == 1000 ? 1000 : 1200);
        });
        threads.clear();  // joins
        decoder.join();
        r.finish(RunOutcome{0, "", "", 1.23456, std::string("out/report.json")});
        r.note(NoteLevel::info, "after the end: not written");
    }
    const auto events = parse_all(tmp.lines());
    std::map<std::string, int> count;
    std::map<int, int> done_per_rung;
    for (const auto& j : events) {
        const std::string ev = j["event"];
        ++count[ev];
        if (ev == "chunk_done") {
            const int rung = j["rung"];
            EXPECT_EQ(j["chunks_done"].get<int>(), ++done_per_rung[rung]) << "the renderer counts a rung's chunks";
            EXPECT_EQ(j["rung_frames_done"].get<long>(), 25L * done_per_rung[rung]);
            EXPECT_EQ(j["frames"], 25);
            EXPECT_EQ(j["encode_seconds"].get<double>(), 0.012);
        }
        if (ev == "chunk_failed") {
            EXPECT_EQ(j["error"], "injected \"quote\" and\nnewline");
        }
    }
    EXPECT_EQ(count["rung_state"], 3 * kThreads);
    EXPECT_EQ(count["chunk_started"], kThreads * kChunks);
    EXPECT_EQ(count["chunk_done"], kThreads * kChunks);
    EXPECT_EQ(count["chunk_failed"], kThreads * 4);
    EXPECT_EQ(count["job_done"], 1);
    EXPECT_GE(count["note"], kThreads * 5);
    // Throttled to 5 a second, plus the final one.
    EXPECT_GE(count["decode_progress"], 1);
    EXPECT_LE(count["decode_progress"], 20);
    // The last decode_progress is the final count.
    nlohmann::json last_decode;
    for (const auto& j : events)
        if (j["event"] == "decode_progress") last_decode = j;
    EXPECT_EQ(last_decode["frames_decoded"], 1000);
    EXPECT_EQ(last_decode["frames_expected"], 1000);
    EXPECT_EQ(last_decode["done"], true);
    // job_done is the last line: events after finish() are dropped.
    ASSERT_FALSE(events.empty());
    const auto it = events.end() - 1;
    ASSERT_EQ((*it)["event"], "job_done");
    EXPECT_EQ((*it)["ok"], true);
    EXPECT_EQ((*it)["exit_code"], 0);
    EXPECT_EQ((*it)["wall_seconds"].get<double>(), 1.235);
    EXPECT_EQ((*it)["report"], "out/report.json");
}

TEST(ProgressJson, EachEventHasItsFields) {
    TmpFile tmp;
    {
        JsonProgressRenderer r(tmp.f);
        r.note(NoteLevel::info, "hello");
        r.rung_state(0, "720p", RungState::pending);
        r.decode_progress(10, 100);
        r.chunk_started(0, "720p", 3, "cpu0:svt");
        ChunkDone d;
        d.rung = 0;
        d.rung_name = "720p";
        d.chunk = 3;
        d.frames = 48;
        d.bytes = 123456;
        d.slot = "cpu0:svt";
        d.encode_seconds = 1.5;
        r.chunk_done(d);
        r.chunk_failed("720p", 4, "cpu1:aom", "boom", "crash");
        r.log_line("[libsvtav1 @ 0x1] something");
        r.finish(RunOutcome{1, "the run failed: boom", "ladder: error: the run failed: boom", 2.0, std::nullopt});
        r.finish(RunOutcome{0, "", "", 3.0, std::nullopt});  // a second finish does nothing
    }
    const auto e = parse_all(tmp.lines());
    ASSERT_EQ(e.size(), 8u);
    EXPECT_EQ(e[0]["event"], "note");
    EXPECT_EQ(e[0]["level"], "info");
    EXPECT_EQ(e[0]["message"], "hello");
    EXPECT_EQ(e[1]["event"], "rung_state");
    EXPECT_EQ(e[1]["rung"], 0);
    EXPECT_EQ(e[1]["name"], "720p");
    EXPECT_EQ(e[1]["state"], "pending");
    EXPECT_EQ(e[2]["event"], "decode_progress");
    EXPECT_EQ(e[2]["frames_decoded"], 10);
    EXPECT_EQ(e[2]["frames_expected"], 100);
    EXPECT_EQ(e[2]["done"], false);
    EXPECT_EQ(e[3]["event"], "chunk_started");
    EXPECT_EQ(e[3]["rung_name"], "720p");
    EXPECT_EQ(e[3]["chunk"], 3);
    EXPECT_EQ(e[3]["slot"], "cpu0:svt");
    EXPECT_EQ(e[4]["event"], "chunk_done");
    EXPECT_EQ(e[4]["bytes"], 123456);
    EXPECT_EQ(e[4]["frames"], 48);
    EXPECT_EQ(e[4]["encode_seconds"], 1.5);
    EXPECT_EQ(e[4]["chunks_done"], 1);
    EXPECT_EQ(e[4]["frames_expected"], 100);
    EXPECT_EQ(e[5]["event"], "chunk_failed");
    EXPECT_EQ(e[5]["error"], "boom");
    EXPECT_EQ(e[5]["cause"], "crash");
    EXPECT_EQ(e[6]["event"], "log");
    EXPECT_EQ(e[7]["event"], "job_failed");
    EXPECT_EQ(e[7]["ok"], false);
    EXPECT_EQ(e[7]["exit_code"], 1);
    EXPECT_EQ(e[7]["error"], "the run failed: boom");
    EXPECT_TRUE(e[7]["report"].is_null());
    // Key order: event, t, v first.
    const std::string first = tmp.lines()[0];
    EXPECT_EQ(first.rfind("{\"event\":\"note\",\"t\":", 0), 0u) << first;
}

// Budget's passes: pass_started opens each; chunk events after it carry
// "pass" and count within it (none before the first pass_started).
TEST(ProgressJson, PassesAreNumberedAndChunksCountWithinTheirPass) {
    TmpFile tmp;
    {
        JsonProgressRenderer r(tmp.f);
        ChunkDone d;
        d.rung = 1;
        d.rung_name = "360p";
        d.frames = 50;
        d.slot = "cpu0:svt";
        r.chunk_done(d);
        r.pass_started({1, false, {"360p"}});
        r.chunk_started(1, "360p", 0, "cpu0:svt");
        r.chunk_done(d);
        r.chunk_done(d);
        r.pass_started({2, true, {}});
        r.chunk_failed("360p", 0, "cpu0:svt", "boom", "error");
        r.chunk_done(d);
    }
    const auto e = parse_all(tmp.lines());
    ASSERT_EQ(e.size(), 8u);
    EXPECT_FALSE(e[0].contains("pass")) << "a run of one pass: no pass key";
    EXPECT_EQ(e[1]["event"], "pass_started");
    EXPECT_EQ(e[1]["pass"], 1);
    EXPECT_EQ(e[1]["writes_outputs"], false);
    EXPECT_EQ(e[1]["searching"], nlohmann::json::array({"360p"}));
    EXPECT_EQ(e[2]["pass"], 1);
    EXPECT_EQ(e[3]["pass"], 1);
    EXPECT_EQ(e[3]["rung_frames_done"], 50) << "the count starts again at the pass";
    EXPECT_EQ(e[4]["rung_frames_done"], 100);
    EXPECT_EQ(e[5]["writes_outputs"], true);
    EXPECT_EQ(e[5]["searching"], nlohmann::json::array());
    EXPECT_EQ(e[6]["pass"], 2);
    EXPECT_EQ(e[7]["pass"], 2);
    EXPECT_EQ(e[7]["chunks_done"], 1);
    EXPECT_EQ(e[7]["rung_frames_done"], 50);
}

TEST(ProgressJson, DecodeProgressIsThrottledButTheLastAlwaysComes) {
    TmpFile tmp;
    {
        JsonProgressRenderer r(tmp.f, std::chrono::milliseconds(200));
        for (int f = 1; f < 5000; ++f) r.decode_progress(f, 6000);  // estimate never reached
        r.decode_progress(5000, 5000);
    }
    const auto e = parse_all(tmp.lines());
    ASSERT_GE(e.size(), 2u);
    EXPECT_LE(e.size(), 5u) << "a burst of calls gives about one line per 200 ms";
    EXPECT_EQ(e.front()["frames_decoded"], 1) << "the first report is not held back";
    EXPECT_EQ(e.back()["frames_decoded"], 5000);
    EXPECT_EQ(e.back()["done"], true);
}

TEST(ProgressJson, InvalidUtf8DoesNotThrow) {
    TmpFile tmp;
    {
        JsonProgressRenderer r(tmp.f);
        r.note(NoteLevel::warning, std::string("bad \xff\xfe bytes"));
    }
    const auto e = parse_all(tmp.lines());
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0]["level"], "warning");
}

TEST(ProgressJson, LibraryStderrBecomesLogEvents) {
    TmpFile tmp;
    {
        // What the encode command does in json mode, with the renderer on a file.
        StderrCapture capture;
        JsonProgressRenderer r(tmp.f);
        capture.start([&r](const std::string& line) { r.log_line(line); });
        std::fprintf(stderr, "Svt[error]: first\n");
        std::fflush(stderr);
        std::thread([] { std::fputs("from a thread\n", stderr); }).join();
        // A line ends with \r\n; the last one has no end at all.
        const char raw[] = "[libx @ 0x1] second\r\npartial";
        ASSERT_EQ(::write(STDERR_FILENO, raw, sizeof raw - 1), static_cast<ssize_t>(sizeof raw - 1));
        r.note(NoteLevel::info, "a note");
        capture.stop();  // fd 2 is stderr again; every captured line is delivered
        r.finish(RunOutcome{0, "", "", 0.5, std::nullopt});
    }
    const auto e = parse_all(tmp.lines());
    std::vector<std::string> logs;
    for (const auto& j : e)
        if (j["event"] == "log") logs.push_back(j["message"]);
    std::sort(logs.begin(), logs.end());
    EXPECT_EQ(logs, (std::vector<std::string>{"Svt[error]: first", "[libx @ 0x1] second", "from a thread", "partial"}));
    EXPECT_EQ(e.back()["event"], "job_done") << "every log line comes before the last line";
}

}  // namespace
