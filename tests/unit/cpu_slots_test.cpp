// The default CPU slot layout: how many encoder sessions and how many
// threads each, by cores and memory.
#include <gtest/gtest.h>

#include "gpu/cpu_info.hpp"

namespace {

using ladder::gpu::CpuInfo;

constexpr std::uint64_t kGiB = 1ull << 30;

CpuInfo machine_with(int cores, std::uint64_t memory = 64 * kGiB) { return CpuInfo{cores, memory, "test"}; }

TEST(CpuSlots, FewCoresGetOneSingleThreadSessionEach) {
    for (int cores : {1, 2, 8, 15}) {
        const auto slots = ladder::gpu::make_cpu_slots("libsvtav1", 0, machine_with(cores));
        ASSERT_EQ(static_cast<int>(slots.size()), cores) << cores << " cores";
        for (const auto& s : slots) EXPECT_EQ(s.threads, 1) << cores << " cores";
    }
}

TEST(CpuSlots, ManyCoresGetASessionOfThreeThreadsPerTwoCores) {
    for (int cores : {16, 32, 64}) {
        const auto slots = ladder::gpu::make_cpu_slots("libsvtav1", 0, machine_with(cores, 256 * kGiB));
        ASSERT_EQ(static_cast<int>(slots.size()), cores / 2) << cores << " cores";
        for (const auto& s : slots) EXPECT_EQ(s.threads, 3) << cores << " cores";
    }
    const auto layout = ladder::gpu::default_cpu_slot_layout(machine_with(16));
    EXPECT_EQ(layout.count, 8);
    EXPECT_EQ(layout.threads, 3);
}

TEST(CpuSlots, BeyondSixtyFourSessionsTheThreadsGrow) {
    const auto layout = ladder::gpu::default_cpu_slot_layout(machine_with(256, 512 * kGiB));
    EXPECT_EQ(layout.count, 64);
    EXPECT_EQ(layout.threads, 6);
}

TEST(CpuSlots, GivenThreadsAreKeptWithTheDefaultOrAGivenCount) {
    for (int count : {0, 4}) {
        const auto slots = ladder::gpu::make_cpu_slots("libsvtav1", count, machine_with(16), 5);
        for (const auto& s : slots) EXPECT_EQ(s.threads, 5) << count;
    }
    const auto mixed = ladder::gpu::make_cpu_slots({{"libsvtav1", 2}, {"libaom-av1", 1}}, machine_with(16), 2);
    ASSERT_EQ(mixed.size(), 3u);
    for (const auto& s : mixed) EXPECT_EQ(s.threads, 2);
}

TEST(CpuSlots, MemoryLimitsTheDefaultCount) {
    const auto slots = ladder::gpu::make_cpu_slots("libsvtav1", 0, machine_with(16, 2 * kGiB + kGiB / 2));
    ASSERT_EQ(slots.size(), 2u);
    EXPECT_EQ(slots[0].threads, 8);
}

TEST(CpuSlots, AnExplicitCountIsKept) {
    const auto slots = ladder::gpu::make_cpu_slots("libsvtav1", 16, machine_with(16));
    ASSERT_EQ(slots.size(), 16u);
    EXPECT_EQ(slots[0].threads, 1);
}

}  // namespace
