// Budget rate control's sessions: one single-thread session per core, and
// each pass's chunks given threads by their share of what the pass
// encodes, so that a pass of few chunks still keeps the cores busy.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "engine/run/budget_search.hpp"
#include "tests/unit/crf_search_replay.hpp"

namespace ladder::engine {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

gpu::CpuInfo machine_with(int cores, std::uint64_t memory = 64 * kGiB) { return gpu::CpuInfo{cores, memory, "test"}; }

DevicePlan default_slots(int cores) {
    DevicePlan devices;
    devices.slots = gpu::make_cpu_slots("libsvtav1", 0, machine_with(cores));
    return devices;
}

JobOptions budget() {
    JobOptions options;
    options.rate_mode = RateMode::budget;
    return options;
}

int total_threads(const DevicePlan& devices) {
    int threads = 0;
    for (const auto& s : devices.slots) threads += s.threads;
    return threads;
}

TEST(BudgetSlots, OneSingleThreadSessionPerCoreAtAnyCoreCount) {
    for (int cores : {2, 16, 64}) {
        DevicePlan devices = default_slots(cores);
        lay_out_budget_slots(budget(), devices, machine_with(cores));
        ASSERT_EQ(static_cast<int>(devices.slots.size()), cores) << cores << " cores";
        EXPECT_EQ(total_threads(devices), cores);
        EXPECT_EQ(devices.slots.front().encoder, "libsvtav1");
    }
    // Memory still caps the sessions (about 1 GiB each).
    DevicePlan devices = default_slots(16);
    lay_out_budget_slots(budget(), devices, machine_with(16, 4 * kGiB + kGiB / 2));
    ASSERT_EQ(devices.slots.size(), 4u);
    EXPECT_EQ(devices.slots.front().threads, 4);
}

TEST(BudgetSlots, TheUsersLayoutVbrAndGpuSlotsAreKept) {
    const auto kept = [](const JobOptions& options, DevicePlan devices) {
        const std::size_t before = devices.slots.size();
        lay_out_budget_slots(options, devices, machine_with(16));
        return devices.slots.size() == before;
    };
    EXPECT_FALSE(kept(budget(), default_slots(16))) << "the default layout is replaced";
    JobOptions vbr = budget();
    vbr.rate_mode = RateMode::vbr;
    EXPECT_TRUE(kept(vbr, default_slots(16)));
    JobOptions slots = budget();
    slots.cpu_slots = 8;
    EXPECT_TRUE(kept(slots, default_slots(16)));
    JobOptions threads = budget();
    threads.cpu_threads = 3;
    EXPECT_TRUE(kept(threads, default_slots(16)));
    DevicePlan with_gpu = default_slots(16);
    gpu::EncoderSlot nvenc;
    nvenc.kind = gpu::DeviceKind::nvidia;
    nvenc.set_encoder("av1_nvenc");
    with_gpu.slots.push_back(nvenc);
    EXPECT_TRUE(kept(budget(), std::move(with_gpu)));
}

// 720p, 360p (the lead) and 540p, 25 fps.
LadderCrfSearch three_rungs() { return LadderCrfSearch({{2500, 1280 * 720}, {600, 640 * 360}, {1200, 960 * 540}}, 25); }

TEST(BudgetThreads, TheLeadAloneSharesTheCoresAmongItsChunks) {
    const LadderCrfSearch search = three_rungs();
    // 8 s in chunks of 2: 4 chunks on 16 cores.
    std::vector<ChunkCrfs> crfs = chunk_crfs_of(search);
    share_threads(crfs, search, 16, 8.0, 2.0);
    EXPECT_EQ(crfs[1].threads, 4);
    EXPECT_EQ(crfs[0].threads, 0) << "a rung that sits the pass out takes none";
    EXPECT_EQ(crfs[2].threads, 0);
    // A long source: more chunks than cores, one thread each.
    crfs = chunk_crfs_of(search);
    share_threads(crfs, search, 16, 600.0, 2.0);
    EXPECT_EQ(crfs[1].threads, 1);
    // A source shorter than a chunk: one chunk, every core.
    crfs = chunk_crfs_of(search);
    share_threads(crfs, search, 16, 1.0, 2.0);
    EXPECT_EQ(crfs[1].threads, 16);
}

TEST(BudgetThreads, RungsShareByPixelsAndOnlyTheChunksLeftToEncodeCount) {
    LadderCrfSearch search = three_rungs();
    // The lead settles at once (600 kb/s at CRF 40) and hands over to
    // 540p; 720p waits for 540p's first encode.
    search.record(1, {75000, 75000, 75000, 75000}, crf_replay::even_frames(4, 100));
    ASSERT_TRUE(search.searching(2));
    std::vector<ChunkCrfs> crfs = chunk_crfs_of(search);
    share_threads(crfs, search, 16, 4.0, 1.0);
    EXPECT_EQ(crfs[2].threads, 4) << "540p's 4 chunks alone";
    EXPECT_EQ(crfs[1].threads, 0) << "settled";
    // 540p makes 1340 kb/s of 1200 (12% over): it encodes again only the
    // chunks its correction moves, and 720p every chunk; each chunk's
    // threads are its share of that work's pixel-seconds.
    search.record(2, {170000, 170000, 165000, 165000}, crf_replay::even_frames(4, 100));
    ASSERT_TRUE(search.searching(0));
    ASSERT_TRUE(search.searching(2));
    const double again = search.rung(2).seconds_to_encode_next();
    ASSERT_GT(again, 0);
    ASSERT_LT(again, 4.0) << "not every chunk of 540p again";
    ASSERT_DOUBLE_EQ(search.rung(0).seconds_to_encode_next(), 4.0);
    crfs = chunk_crfs_of(search);
    share_threads(crfs, search, 16, 4.0, 1.0);
    const double work = 4.0 * 1280 * 720 + again * 960 * 540;
    EXPECT_EQ(crfs[0].threads, std::lround(16 * 1.0 * 1280 * 720 / work));
    EXPECT_EQ(crfs[2].threads, std::lround(16 * 1.0 * 960 * 540 / work));
    EXPECT_GT(crfs[0].threads, crfs[2].threads);
    const double threads_at_once = 4 * crfs[0].threads + again * crfs[2].threads;
    EXPECT_GE(threads_at_once, 14);
    EXPECT_LE(threads_at_once, 16 + 2) << "at most half a thread over per rung";
}

}  // namespace
}  // namespace ladder::engine
