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

TEST(CpuSlots, ManyCoresGetSessionsOfFourThreads) {
    for (int cores : {16, 32, 64}) {
        const auto slots = ladder::gpu::make_cpu_slots("libsvtav1", 0, machine_with(cores));
        ASSERT_EQ(static_cast<int>(slots.size()), cores / 4) << cores << " cores";
        for (const auto& s : slots) EXPECT_EQ(s.threads, 4) << cores << " cores";
    }
    EXPECT_EQ(ladder::gpu::default_cpu_slot_count(machine_with(16)), 4);
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
