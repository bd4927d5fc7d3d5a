// --rate-control budget across machines: `ladder plan --rate-control
// budget` searches each rung's quality over the whole source and stores
// each chunk's CRF in the plan; shards encode (or find) their chunks at
// those CRFs and `ladder stitch` joins them. The files are the same bytes
// as one `ladder encode --rate-control budget` of the same source.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string> kJob{"--rung",    "180p=320x180@350", "--rung",  "90p=160x90@120", "--preset",
                                    "12",        "--segment-seconds", "1",      "--audio",         "none"};

std::vector<std::string> with_job(std::vector<std::string> args) {
    args.insert(args.end(), kJob.begin(), kJob.end());
    return args;
}

// Three shards, then stitch into `out` (MP4 per rung).
void shard_and_stitch(const fs::path& workdir, const fs::path& out) {
    for (int i = 0; i < 3; ++i) {
        const ProcessResult r = run_ladder(
            {"encode", "--plan", (workdir / "plan.json").string(), "--shard", std::to_string(i) + "/3"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const ProcessResult r = run_ladder({"stitch", workdir.string(), "-o", out.string(), "--format", "mp4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("  CRF "), std::string::npos) << "the rung lines name the plan's CRFs: " << r.out;
}

TEST(RateBudgetShards, APlanOfThreeShardsStitchesTheSameFilesAsOneRun) {
    // A burst of noise in a flat picture: a peak chunk, so the CRFs differ
    // between chunks (5 chunks: shards of 1, 2 and 2).
    const fs::path src = make_clip(
        "budget-shards-src",
        {320, 180, "25", 5.0, false,
         "drawbox=x=0:y=0:w=iw:h=ih/2:color=0x406080:t=fill,noise=alls=40:allf=t:enable='between(t,2,2.99)'"});
    const fs::path dir = fresh_dir("budget-shards");
    const fs::path one = dir / "one";
    ProcessResult r = run_ladder(
        with_job({"encode", src.string(), "-o", one.string(), "--rate-control", "budget", "--format", "mp4"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json report = json::parse(read_text(one / "report.json"));

    const fs::path workdir = dir / "work";
    r = run_ladder(with_job({"plan", src.string(), "-o", workdir.string(), "--rate-control", "budget"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("rate control budget"), std::string::npos) << r.out;
    const json plan = json::parse(read_text(workdir / "plan.json"));
    ASSERT_EQ(plan.at("rate_control").at("mode"), "budget");
    const json& plan_crfs = plan.at("rate_control").at("chunk_crf");
    ASSERT_EQ(plan_crfs.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(plan_crfs.at(i), report.at("rungs").at(i).at("crf_search").at("chunk_crf"))
            << "the plan's search decided otherwise than the run's";
    }
    EXPECT_NE(plan_crfs.at(0).at(2), plan_crfs.at(0).at(0)) << "the burst's chunk should have its own CRF";

    // Shards on the plan's folder find the search's chunks there.
    shard_and_stitch(workdir, dir / "stitched");
    for (const char* rung : {"180p.mp4", "90p.mp4"})
        EXPECT_TRUE(read_text(dir / "stitched" / rung) == read_text(one / rung)) << rung << " differs";
    // The stitched report says what the plan decided: budget, each rung's CRF.
    const json stitched = json::parse(read_text(dir / "stitched" / "report.json"));
    EXPECT_EQ(stitched.at("rate_control"), "budget");
    for (std::size_t i = 0; i < 2; ++i)
        EXPECT_EQ(stitched.at("rungs").at(i).at("crf"), report.at("rungs").at(i).at("crf"));

    // Shards that find nothing (the folder's chunks gone, as on machines
    // that did not share it with the plan) encode at the plan's CRFs.
    fs::remove_all(workdir / ".ladder");
    fs::remove_all(workdir / "reports");
    shard_and_stitch(workdir, dir / "encoded");
    for (const char* rung : {"180p.mp4", "90p.mp4"})
        EXPECT_TRUE(read_text(dir / "encoded" / rung) == read_text(one / rung)) << rung << " differs";
}

TEST(RateBudgetShards, AShardOfAVbrPlanRefusesBudgetBeforeEncoding) {
    const fs::path src = make_clip("budget-shards-vbr-src", {320, 180, "25", 2.0, false, ""});
    const fs::path workdir = fresh_dir("budget-shards-vbr") / "work";
    ProcessResult r = run_ladder(with_job({"plan", src.string(), "-o", workdir.string()}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_ladder({"encode", "--plan", (workdir / "plan.json").string(), "--shard", "0/2", "--rate-control",
                    "budget"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("ladder plan --rate-control budget"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(workdir / ".ladder" / "180p@crf40"));
}

}  // namespace
}  // namespace ladder::test
