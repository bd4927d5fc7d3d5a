// The shipped binary carries no test switches: the encoder faults the
// scheduler tests need are put in from outside it (tests/fakes/, preloaded),
// and LADDER_TEST_FAULTS, which once switched faults on inside it, changes
// nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

TEST(ReleaseBinary, ReadsNoTestVariable) {
    std::ifstream in(LADDER_BINARY, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ASSERT_GT(bytes.size(), 100000u) << LADDER_BINARY;
    EXPECT_EQ(bytes.find("LADDER_TEST_"), std::string::npos) << "a test variable's name is in " << LADDER_BINARY;
}

TEST(ReleaseBinary, LadderTestFaultsChangesNothing) {
    const fs::path src = make_clip("faults", {160, 120, "25", 3.0, true, ""});
    for (const char* isolation : {"process", "none"}) {
        const fs::path out = fresh_dir(std::string("release-faults-") + isolation);
        // Once: a crash on one slot, failed opens on the other.
        const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "120p=160x120@200",
                                            "--preset", "12", "--segment-seconds", "0.5", "--cpu-slots", "2",
                                            "--isolation", isolation, "--progress", "json"},
                                           {"LADDER_TEST_FAULTS=cpu0:svt=crash;cpu1:svt=open"});
        ASSERT_EQ(r.exit_code, 0) << isolation << ": " << r.err;
        EXPECT_EQ(r.err.find("\"chunk_failed\""), std::string::npos) << isolation << ": " << r.err;
        const auto report = nlohmann::json::parse(read_text(out / "report.json"));
        EXPECT_EQ(report["ok"], true);
        EXPECT_TRUE(report["retries"].empty()) << isolation << ": " << report["retries"].dump();
        EXPECT_EQ(run_ladder({"validate", out.string()}).exit_code, 0) << isolation;
        EXPECT_EQ(probe(out / "120p/index.m3u8").video.at(0).frames, 75) << isolation;
    }
}

}  // namespace
}  // namespace ladder::test
