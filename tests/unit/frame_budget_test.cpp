// Where queued raw frames are budgeted: host memory, or the decoding GPU's.
#include <gtest/gtest.h>

#include "engine/base/errors.hpp"
#include "engine/schedule/frame_budget.hpp"
#include "engine/schedule/gpu_frame_budgets.hpp"

namespace ladder::engine {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;

LadderSpec two_rungs() { return LadderSpec{{{"1080p", 1920, 1080, 4500, 0, 0}, {"360p", 640, 360, 600, 0, 0}}}; }

TEST(FrameBudget, TheLargestChunkIsTheBiggestRungsFramesTimesTheChunkLength) {
    const ChunkBytes c = largest_chunk(two_rungs(), AV_PIX_FMT_YUV420P, 50);
    EXPECT_EQ(c.rung, "1080p");
    EXPECT_EQ(c.bytes, 1920u * 1080u * 3u / 2u * 50u);
    EXPECT_EQ(largest_chunk(two_rungs(), AV_PIX_FMT_YUV420P10LE, 50).bytes, 2 * c.bytes);
}

TEST(FrameBudget, HostDefaultsToAQuarterOfTheAvailableMemoryAndAtLeastTwoChunks) {
    const ChunkBytes c = largest_chunk(two_rungs(), AV_PIX_FMT_YUV420P, 50);  // about 148 MiB
    EXPECT_EQ(host_frame_budget(0, 24 * kGiB, c), 6 * kGiB);
    EXPECT_EQ(host_frame_budget(0, 256 * kMiB, c), 2 * c.bytes);
    EXPECT_EQ(host_frame_budget(512 * kMiB, 24 * kGiB, c), 512 * kMiB);
    EXPECT_THROW(host_frame_budget(100 * kMiB, 24 * kGiB, c), InputError);
}

TEST(FrameBudget, AGpuIsAskedForAQuarterOfItsMemoryAndNeverMore) {
    const ChunkBytes c = largest_chunk(two_rungs(), AV_PIX_FMT_YUV420P, 50);
    EXPECT_EQ(gpu_frame_budget(0, 8 * kGiB, c), 2 * kGiB) << "an 8 GB card holds at most 2 GiB of waiting frames";
    EXPECT_EQ(gpu_frame_budget(0, 80 * kGiB, c), 20 * kGiB);
    EXPECT_EQ(gpu_frame_budget(300 * kMiB, 8 * kGiB, c), 300 * kMiB);
    EXPECT_EQ(gpu_frame_budget(0, 512 * kMiB, c), std::nullopt) << "a quarter holds no chunk: frames go to the host";
    EXPECT_EQ(gpu_frame_budget(0, 0, c), std::nullopt) << "unknown size: frames go to the host";
}

TEST(FrameBudget, AGpuBudgetBelowOneChunkOrAboveTheCardIsAUsageError) {
    const ChunkBytes c = largest_chunk(two_rungs(), AV_PIX_FMT_YUV420P, 50);
    try {
        gpu_frame_budget(10 * kMiB, 8 * kGiB, c);
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--gpu-memory-budget 10485760 bytes is below one chunk of rung 1080p"),
                  std::string::npos)
            << e.what();
    }
    try {
        gpu_frame_budget(16 * kGiB, 8 * kGiB, c);
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("more than the decoding GPU has"), std::string::npos) << e.what();
    }
}

// Each decoding GPU gets its own budget, from its own memory: an 8 GB card
// next to an 80 GB one is asked for a quarter of 8 GB.
TEST(FrameBudget, EachDecodingGpuHasABudgetOfItsOwnSize) {
    const ChunkBytes c = largest_chunk(two_rungs(), AV_PIX_FMT_YUV420P, 50);
    DevicePlan plan;
    plan.keep_frames_on_gpu = true;
    plan.decode_gpus.push_back({nullptr, "GPU 0 small", 0, 8 * kGiB});
    plan.decode_gpus.push_back({nullptr, "GPU 2 large", 2, 80 * kGiB});
    std::string note;
    GpuFrameBudgets budgets(plan, 0, c, note);
    EXPECT_TRUE(note.empty()) << note;
    EXPECT_EQ(budgets.gpus(), (std::set<int>{0, 2}));
    ASSERT_NE(budgets.of(0), nullptr);
    ASSERT_NE(budgets.of(2), nullptr);
    EXPECT_EQ(budgets.of(0)->limit(), 2 * kGiB);
    EXPECT_EQ(budgets.of(2)->limit(), 20 * kGiB);
    EXPECT_EQ(budgets.of(1), nullptr);
    EXPECT_EQ(budgets.largest_limit(), 20 * kGiB);
}

TEST(FrameBudget, NoGpuBudgetsWhenFramesDoNotStayOnTheGpus) {
    const ChunkBytes c = largest_chunk(two_rungs(), AV_PIX_FMT_YUV420P, 50);
    DevicePlan plan;
    plan.decode_gpus.push_back({nullptr, "GPU 0", 0, 80 * kGiB});
    std::string note;
    GpuFrameBudgets budgets(plan, 300 * kMiB, c, note);
    EXPECT_TRUE(budgets.empty());
    EXPECT_NE(note.find("--gpu-memory-budget does not apply"), std::string::npos) << note;
}

}  // namespace
}  // namespace ladder::engine
