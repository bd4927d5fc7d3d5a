// End-to-end: `ladder encode --progress json|bars|plain` and `--report`, with
// the real binary on a tiny clip. The JSON lines and the report are checked
// against each other and against ffprobe's frame count of the outputs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "encoder_faults.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string> kRungs{"120p", "96p"};

fs::path tiny_clip() { return make_clip("progress", {160, 120, "25", 2.0, true, ""}); }

std::vector<std::string> encode_args(const fs::path& src, const fs::path& out) {
    return {"encode",    src.string(), "-o",       out.string(),       "--format",          "mp4",
            "--rung",    "120p=160x120@200",       "--rung",           "96p=128x96@100",    "--preset",
            "12",        "--segment-seconds",      "0.5",              "--cpu-slots",       "2"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// Every stderr line as JSON; a line that does not parse fails the test.
std::vector<json> json_lines(const std::string& err) {
    std::vector<json> out;
    std::istringstream in(err);
    std::string line;
    double last_t = 0;
    while (std::getline(in, line)) {
        SCOPED_TRACE(line);
        json j;
        try {
            j = json::parse(line);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "stderr line is not JSON: " << e.what();
            continue;
        }
        EXPECT_TRUE(j.is_object());
        EXPECT_TRUE(j.contains("event") && j["event"].is_string());
        EXPECT_TRUE(j.contains("t") && j["t"].is_number());
        EXPECT_EQ(j.value("v", 0), 1);
        const double t = j.value("t", 0.0);
        EXPECT_GE(t, last_t) << "t never goes back";
        last_t = t;
        out.push_back(std::move(j));
    }
    return out;
}

json read_json(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
}

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

TEST(ProgressReport, JsonLinesAndTheDefaultReportAgreeWithTheOutputs) {
    const fs::path src = tiny_clip();
    const fs::path out = fresh_dir("progress-json");
    ProcessResult r = run_ladder(with(encode_args(src, out), {"--progress", "json", "--rate-control", "vbr"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("ladder: 2 rungs"), std::string::npos) << "stdout keeps the human summary: " << r.out;

    const std::vector<json> events = json_lines(r.err);
    ASSERT_FALSE(events.empty());
    std::map<std::string, int> completed;
    std::map<std::string, std::set<int>> done_chunks;
    std::map<std::pair<int, int>, std::string> done_slot;
    int started = 0;
    bool final_decode = false;
    for (const auto& e : events) {
        const std::string ev = e["event"];
        if (ev == "rung_state" && e["state"] == "completed") ++completed[e["name"].get<std::string>()];
        if (ev == "chunk_started") ++started;
        if (ev == "chunk_done") {
            const std::string rung = e["rung_name"];
            EXPECT_TRUE(done_chunks[rung].insert(e["chunk"].get<int>()).second) << "one chunk_done per chunk";
            EXPECT_GT(e["frames"].get<long>(), 0);
            EXPECT_GT(e["bytes"].get<long>(), 0);
            EXPECT_FALSE(e["slot"].get<std::string>().empty());
            EXPECT_FALSE(e.contains("crf")) << "a vbr chunk has no CRF: " << e.dump();
            done_slot[{e["rung"].get<int>(), e["chunk"].get<int>()}] = e["slot"];
        }
        if (ev == "decode_progress" && e["done"] == true) final_decode = true;
    }
    for (const auto& name : kRungs) EXPECT_EQ(completed[name], 1) << "one rung_state completed for " << name;
    EXPECT_TRUE(final_decode) << "the final decode_progress is never throttled away";
    for (const auto& e : events) {
        EXPECT_NE(e["event"], "pass_started") << "a run of one pass sends no pass_started";
        EXPECT_FALSE(e.contains("pass")) << e.dump();
    }
    EXPECT_GE(started, static_cast<int>(done_slot.size()));
    const json& last = events.back();
    EXPECT_EQ(last["event"], "job_done");
    EXPECT_EQ(last["ok"], true);
    EXPECT_EQ(last["exit_code"], 0);
    EXPECT_GT(last["wall_seconds"].get<double>(), 0.0);
    EXPECT_EQ(last["report"], (out / "report.json").string());

    // The report.
    ASSERT_TRUE(fs::exists(out / "report.json"));
    const json rep = read_json(out / "report.json");
    EXPECT_EQ(rep["ok"], true);
    EXPECT_TRUE(rep["error"].is_null());
    EXPECT_GT(rep["wall_seconds"].get<double>(), 0.0);
    EXPECT_GT(rep["decode_seconds"].get<double>(), 0.0);
    EXPECT_TRUE(rep["retries"].is_array());
    EXPECT_TRUE(rep["mismatches"].is_array());
    ASSERT_EQ(rep["rungs"].size(), kRungs.size());
    std::set<std::string> slot_labels;
    for (const auto& s : rep["slots"]) slot_labels.insert(s["label"].get<std::string>());
    std::set<std::pair<int, int>> seen;
    std::map<int, long> frames_per_rung;
    for (const auto& c : rep["chunks"]) {
        SCOPED_TRACE(c.dump());
        const int rung = c["rung"], index = c["index"];
        EXPECT_TRUE(seen.insert({rung, index}).second) << "each chunk listed once";
        EXPECT_FALSE(c["slot"].get<std::string>().empty());
        EXPECT_FALSE(c["encoder"].get<std::string>().empty());
        EXPECT_LE(c["start_seconds"].get<double>(), c["end_seconds"].get<double>());
        EXPECT_GT(c["frames"].get<long>(), 0);
        EXPECT_GT(c["bytes"].get<long>(), 0);
        EXPECT_TRUE(slot_labels.count(c["slot"].get<std::string>())) << "a slot of the report";
        EXPECT_EQ(done_slot[std::make_pair(rung, index)], c["slot"].get<std::string>()) << "the slot chunk_done named";
        frames_per_rung[rung] += c["frames"].get<long>();
    }
    EXPECT_EQ(seen.size(), done_slot.size()) << "the same chunks as the chunk_done events";
    for (std::size_t i = 0; i < kRungs.size(); ++i) {
        const json& g = rep["rungs"][i];
        SCOPED_TRACE(g.dump());
        EXPECT_EQ(g["name"], kRungs[i]);
        const FileFacts f = probe(out / (kRungs[i] + ".mp4"));
        ASSERT_EQ(f.video.size(), 1u);
        EXPECT_EQ(g["frames"].get<long>(), f.video[0].frames) << "the report's frames are ffprobe's";
        EXPECT_EQ(frames_per_rung[static_cast<int>(i)], f.video[0].frames) << "its chunks add up";
        EXPECT_EQ(g["chunks"].get<std::size_t>(), done_chunks[kRungs[i]].size());
        EXPECT_GT(g["encode_seconds"].get<double>(), 0.0);
        EXPECT_FALSE(g["slots"].empty());
    }
    for (const auto& e : fs::directory_iterator(out))
        EXPECT_EQ(e.path().filename().string().find(".part"), std::string::npos) << "no temporary left: " << e.path();
}

// Under budget rate control the run goes over the source several times:
// each pass opens with pass_started, its chunk events say "pass" and count
// within it, and the last pass, the one that writes the outputs, has one
// chunk_done per chunk of the report.
TEST(ProgressReport, BudgetPassesAreNumberedAndTheLastOneIsTheOutputs) {
    const fs::path src = make_clip("progress-budget", {160, 120, "25", 3.0, false, "noise=alls=20:allf=t"});
    const fs::path out = fresh_dir("progress-json-budget");
    ProcessResult r = run_ladder(with(encode_args(src, out), {"--progress", "json", "--rate-control", "budget"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<json> events = json_lines(r.err);
    const json rep = read_json(out / "report.json");
    int pass = 0;
    bool writing = false;
    std::map<int, long> frames_this_pass;
    std::set<std::pair<int, int>> written;
    for (const auto& e : events) {
        SCOPED_TRACE(e.dump());
        const std::string ev = e["event"];
        if (ev == "pass_started") {
            EXPECT_EQ(e["pass"], ++pass) << "passes are numbered from 1, in order";
            EXPECT_FALSE(writing) << "the pass that writes the outputs is the last";
            writing = e["writes_outputs"].get<bool>();
            EXPECT_EQ(e["searching"].empty(), writing) << "a search pass names its rungs, the writing pass none";
            frames_this_pass.clear();
        }
        if (ev == "chunk_started" || ev == "chunk_done") {
            EXPECT_EQ(e.value("pass", 0), pass);
        }
        if (ev != "chunk_done") continue;
        frames_this_pass[e["rung"].get<int>()] += e["frames"].get<long>();
        EXPECT_EQ(e["rung_frames_done"].get<long>(), frames_this_pass[e["rung"].get<int>()]) << "counted within the pass";
        EXPECT_LE(e["rung_frames_done"].get<long>(), e["frames_expected"].get<long>());
        // Each chunk says the CRF it was encoded at; the writing pass's are the settled ones.
        ASSERT_TRUE(e.contains("crf"));
        if (writing) {
            EXPECT_TRUE(written.insert({e["rung"].get<int>(), e["chunk"].get<int>()}).second);
            const json& rung = rep["rungs"][e["rung"].get<std::size_t>()];
            EXPECT_EQ(rung["name"], e["rung_name"]);
            EXPECT_EQ(e["crf"], rung["crf_search"]["chunk_crf"][e["chunk"].get<std::size_t>()]);
        }
    }
    EXPECT_TRUE(writing) << "the last pass writes the outputs";
    EXPECT_GT(pass, 2) << "a search pass and the writing pass at least";
    EXPECT_EQ(rep["source_passes"].get<int>(), pass);
    EXPECT_EQ(written.size(), rep["chunks"].size()) << "the writing pass's chunk_done events are the outputs' chunks";
}

// --cpu-threads reaches every CPU session as given (the report lists each
// session's threads): the tail of the run does not add threads to what the
// user set.
TEST(ProgressReport, CpuThreadsReachEverySession) {
    const fs::path src = tiny_clip();
    const fs::path out = fresh_dir("progress-cpu-threads");
    ProcessResult r = run_ladder(with(encode_args(src, out), {"--policy", "cpu", "--cpu-threads", "3"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json rep = read_json(out / "report.json");
    ASSERT_FALSE(rep["sessions"].empty());
    for (const auto& s : rep["sessions"]) EXPECT_EQ(s["threads"].get<int>(), 3) << s.dump();
}

TEST(ProgressReport, ReportNoneAndReportPath) {
    const fs::path src = tiny_clip();
    {
        const fs::path out = fresh_dir("progress-report-none");
        ProcessResult r = run_ladder(with(encode_args(src, out), {"--report", "none", "--progress", "plain"}));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_FALSE(fs::exists(out / "report.json"));
        EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "plain progress has no ANSI";
        EXPECT_NE(r.err.find("rung 120p completed"), std::string::npos) << r.err;
    }
    {
        const fs::path out = fresh_dir("progress-report-path");
        const fs::path elsewhere = fresh_dir("progress-report-elsewhere") / "nested" / "run.json";
        // Not a terminal: auto is plain.
        ProcessResult r = run_ladder(with(encode_args(src, out), {"--report", elsewhere.string()}));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_FALSE(fs::exists(out / "report.json"));
        ASSERT_TRUE(fs::exists(elsewhere));
        const json rep = read_json(elsewhere);
        EXPECT_EQ(rep["ok"], true);
        EXPECT_EQ(rep["rungs"].size(), kRungs.size());
        EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "auto is plain when stderr is not a terminal";
    }
}

TEST(ProgressReport, FailedRunWritesAPartialReportAndJobFailed) {
    const fs::path src = tiny_clip();
    const fs::path out = fresh_dir("progress-failed");
    // Every chunk fails to open its encoder on both slots: the run fails (exit 1).
    ProcessResult r = run_ladder(with(encode_args(src, out), {"--progress", "json", "--max-tries", "2"}),
                                 failing_slots("cpu0:svt=open;cpu1:svt=open"));
    ASSERT_EQ(r.exit_code, 1) << r.err;
    const std::vector<json> events = json_lines(r.err);
    ASSERT_FALSE(events.empty());
    int failed = 0;
    for (const auto& e : events) failed += e["event"] == "chunk_failed" ? 1 : 0;
    EXPECT_GE(failed, 1);
    const json& last = events.back();
    EXPECT_EQ(last["event"], "job_failed");
    EXPECT_EQ(last["ok"], false);
    EXPECT_EQ(last["exit_code"], 1);
    EXPECT_FALSE(last["error"].get<std::string>().empty());
    EXPECT_EQ(last["report"], (out / "report.json").string());
    ASSERT_TRUE(fs::exists(out / "report.json"));
    const json rep = read_json(out / "report.json");
    EXPECT_EQ(rep["ok"], false);
    EXPECT_EQ(rep["partial"], true);
    EXPECT_EQ(rep["error"], last["error"]);
    EXPECT_FALSE(rep["retries"].empty());
}

TEST(ProgressReport, UsageErrorWritesNoReport) {
    const fs::path out = fresh_dir("progress-usage");
    ProcessResult r = run_ladder({"encode", (out / "missing.mp4").string(), "-o", out.string(), "--progress", "json"});
    ASSERT_EQ(r.exit_code, 2) << r.err;
    const std::vector<json> events = json_lines(r.err);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back()["event"], "job_failed");
    EXPECT_EQ(events.back()["exit_code"], 2);
    EXPECT_TRUE(events.back()["report"].is_null());
    EXPECT_FALSE(fs::exists(out / "report.json"));
}

TEST(ProgressReport, BarsUnderAPseudoTerminal) {
    if (run_process({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "util-linux script not found";
    const fs::path src = tiny_clip();
    const fs::path out = fresh_dir("progress-bars");
    std::string cmd = "TERM=xterm exec " + shell_quote(LADDER_BINARY);
    for (const auto& a : encode_args(src, out)) cmd += " " + shell_quote(a);
    // auto: stderr is the pty, so bars.
    ProcessResult r = run_process({"script", "-qfec", cmd, "/dev/null"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const std::string& tty = r.out;  // the pty's output: stdout and stderr together
    EXPECT_TRUE(std::regex_search(tty, std::regex("\x1b\\[[0-9]+A"))) << "cursor-up redraws: " << tty;
    EXPECT_NE(tty.find("\x1b[2K"), std::string::npos);
    for (const auto& name : kRungs) EXPECT_NE(tty.find(name), std::string::npos) << name;
    EXPECT_NE(tty.find("100%"), std::string::npos);
    EXPECT_NE(tty.find("decode"), std::string::npos);
    EXPECT_NE(tty.find("ladder: 2 rungs"), std::string::npos) << "the summary still comes";
    EXPECT_TRUE(fs::exists(out / "report.json"));
}

}  // namespace
}  // namespace ladder::test
