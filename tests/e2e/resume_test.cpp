// A run killed with SIGKILL part-way is resumed with --resume: only the
// chunks missing from the journal are encoded, and the ladder validates and
// decodes completely. These runs ask for --rate-control vbr, whose
// journal holds one encode per chunk; budget's resume is tested in
// rate_budget_test.cpp.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

TEST(Resume, AfterKill9OnlyTheMissingChunksAreEncoded) {
    const fs::path src = make_clip("resume", {320, 180, "25", 12.0, true, ""});
    const fs::path out = fresh_dir("resume");
    std::vector<std::string> args{"encode", src.string(), "-o", out.string(), "--rung", "180p=320x180@400", "--rung",
                                  "90p=160x90@150", "--preset", "10", "--rate-control", "vbr", "-q"};
    const int pid = spawn_ladder(args);
    // Kill it once some chunks are journaled, well before the end (12 chunks).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (journaled_chunks(out) < 3 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kill(pid, SIGKILL);
    ASSERT_EQ(wait_exit(pid), 128 + SIGKILL);
    const int journaled = journaled_chunks(out);
    ASSERT_GE(journaled, 3);
    ASSERT_LT(journaled, 12) << "killed too late to prove anything";
    EXPECT_FALSE(fs::exists(out / "master.m3u8"));

    args.pop_back();  // -q
    std::vector<std::string> resume = args;
    resume.push_back("--resume");
    ProcessResult r = run_ladder(resume);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto report = nlohmann::json::parse(read_text(out / "report.json"));
    const int resumed = report["resumed_chunks"].get<int>();
    std::printf("[ metric   ] journaled %d chunks before the kill, resumed %d\n", journaled, resumed);
    EXPECT_GE(resumed, journaled - 1) << "(a chunk journaled after the count may be missing)";
    EXPECT_LE(resumed, journaled);
    EXPECT_NE(r.err.find("resumed " + std::to_string(resumed) + " chunk(s) from the journal"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out / ".ladder")) << "the journal goes once the run is complete";

    ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out;
    for (const char* rung : {"180p", "90p"}) {
        FileFacts f = probe(out / rung / "index.m3u8");
        EXPECT_EQ(f.video[0].frames, 300) << rung;
        EXPECT_EQ(decode_errors(out / rung / "index.m3u8"), "") << rung;
    }
    // And a real player plays the resumed ladder to the end.
    ProcessResult play = run_process({"node", std::string(LADDER_SOURCE_DIR) + "/tests/player/play.mjs", out.string(),
                                      "--timeout-ms", "90000"});
    EXPECT_EQ(play.exit_code, 0) << play.out << play.err;
    EXPECT_NE(play.out.find("PLAYER-RESULT {\"ok\":true"), std::string::npos) << play.out;
}

// What a batch scheduler does on preemption: SIGTERM in the middle of the
// chunks. The run stops with 143, keeps every chunk it finished, and the
// same command with --resume encodes only the rest.
TEST(Resume, AfterSigtermExits143AndTheSameCommandWithResumeFinishes) {
    const fs::path src = make_clip("resume-term", {320, 180, "25", 12.0, true, ""});
    const fs::path out = fresh_dir("resume-term");
    std::vector<std::string> args{"encode", src.string(), "-o", out.string(), "--rung", "180p=320x180@400", "--rung",
                                  "90p=160x90@150", "--preset", "10", "--format", "hls,dash", "--rate-control", "vbr"};
    const fs::path err_file = out.string() + ".stderr";
    const int pid = spawn_ladder(args, err_file);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (journaled_chunks(out) < 3 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kill(pid, SIGTERM);
    ASSERT_EQ(wait_exit(pid), 143) << read_text(err_file);
    EXPECT_NE(read_text(err_file).find("ladder: interrupted by SIGTERM"), std::string::npos) << read_text(err_file);
    // Nothing is written after the exit: this is what the journal keeps.
    const int journaled = journaled_chunks(out);
    ASSERT_GE(journaled, 3);
    ASSERT_LT(journaled, 12) << "stopped too late to prove anything";
    EXPECT_FALSE(fs::exists(out / "master.m3u8"));
    EXPECT_FALSE(fs::exists(out / "manifest.mpd"));

    args.push_back("--resume");
    const ProcessResult r = run_ladder(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto report = nlohmann::json::parse(read_text(out / "report.json"));
    std::printf("[ metric   ] journaled %d chunks before SIGTERM, resumed %d\n", journaled,
                report["resumed_chunks"].get<int>());
    EXPECT_EQ(report["resumed_chunks"].get<int>(), journaled);
    EXPECT_TRUE(fs::exists(out / "manifest.mpd")) << "the resumed run writes the DASH manifest too";
    const ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out;
    for (const char* rung : {"180p", "90p"}) {
        const FileFacts f = probe(out / rung / "index.m3u8");
        EXPECT_EQ(f.video[0].frames, 300) << rung;
    }
}

TEST(Resume, AJournalFromAnotherJobIsRefused) {
    const fs::path src = make_clip("resume-other", {160, 120, "25", 1.0, true, ""});
    const fs::path out = fresh_dir("resume-other");
    fs::create_directories(out / ".ladder");
    std::ofstream(out / ".ladder/job.json") << R"({"fingerprint": "some other job"})";
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "120p=160x120@200",
                                  "--preset", "12", "--resume"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--resume: the journal in"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("different source, ladder or encoder settings"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ladder::test
