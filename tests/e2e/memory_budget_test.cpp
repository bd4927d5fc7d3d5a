// --memory-budget bounds the bytes of raw frames queued for encoding: the
// pump waits when it is full, the peak never goes over it, a budget just
// above one chunk of the largest rung still finishes, and one below is
// refused before anything starts.
#include <gtest/gtest.h>

#include "av/logging.hpp"
#include "engine/base/errors.hpp"
#include "engine/run/job.hpp"
#include "engine/check/ladder_validator.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

// 320x240 yuv420p = 115200 bytes a frame; 0.5 s at 25 fps = 13-frame chunks.
constexpr std::uint64_t kLargestChunk = 115200ull * 13;

engine::JobOptions budget_job(const std::string& name, std::uint64_t budget) {
    engine::JobOptions o;
    o.input = make_clip("budget", {320, 240, "25", 3.0, true, ""});
    o.outdir = fresh_dir(name);
    o.ladder = engine::LadderSpec{{{"240p", 320, 240, 400, 0, 0}, {"120p", 160, 120, 150, 0, 0}}};
    o.preset = 12;
    o.segment_seconds = 0.5;
    o.memory_budget = budget;
    o.cpu_slots = 2;
    return o;
}

TEST(MemoryBudget, JustAboveOneChunkOfTheLargestRungStillFinishes) {
    av::quiet_library_logs();
    engine::NullProgressSink sink;
    const auto o = budget_job("budget-tight", kLargestChunk + 1);
    const engine::JobReport r = engine::run_job(o, sink);
    std::printf("[ metric   ] budget %llu, peak queued %llu\n", static_cast<unsigned long long>(r.memory_budget),
                static_cast<unsigned long long>(r.peak_queued_bytes));
    EXPECT_EQ(r.memory_budget, kLargestChunk + 1);
    EXPECT_LE(r.peak_queued_bytes, r.memory_budget);
    EXPECT_GE(r.peak_queued_bytes, kLargestChunk) << "the 240p chunks did go through the budget";
    for (const auto& rung : r.rungs) EXPECT_EQ(rung.frames, 75);
    EXPECT_TRUE(engine::validate_hls_ladder(o.outdir).problems.empty());
}

TEST(MemoryBudget, PeakStaysUnderTheDefaultBudget) {
    av::quiet_library_logs();
    engine::NullProgressSink sink;
    const engine::JobReport r = engine::run_job(budget_job("budget-default", 0), sink);
    EXPECT_GE(r.memory_budget, 2 * kLargestChunk);
    EXPECT_LE(r.peak_queued_bytes, r.memory_budget);
    EXPECT_GT(r.peak_queued_bytes, 0u);
}

TEST(MemoryBudget, BelowOneChunkIsRefusedBeforeAnythingIsWritten) {
    engine::NullProgressSink sink;
    const auto o = budget_job("budget-refused", kLargestChunk - 1);
    try {
        engine::run_job(o, sink);
        FAIL() << "expected an InputError";
    } catch (const engine::InputError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("--memory-budget"), std::string::npos) << msg;
        EXPECT_NE(msg.find("rung 240p"), std::string::npos) << msg;
    }
    EXPECT_TRUE(fs::is_empty(o.outdir));
    ProcessResult cli = run_ladder({"encode", o.input.string(), "-o", (o.outdir / "cli").string(), "--rung",
                                    "240p=320x240@400", "--memory-budget", "1M", "--segment-seconds", "0.5"});
    EXPECT_EQ(cli.exit_code, 2) << cli.err;
    EXPECT_NE(cli.err.find("--memory-budget 1048576 bytes is below one chunk of rung 240p"), std::string::npos)
        << cli.err;
    EXPECT_EQ(run_ladder({"encode", o.input.string(), "-o", (o.outdir / "cli").string(), "--memory-budget", "12X"})
                  .exit_code,
              2);
}

}  // namespace
}  // namespace ladder::test
