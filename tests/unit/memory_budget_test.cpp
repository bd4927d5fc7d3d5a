// MemoryBudget::try_reserve: a reservation without waiting when the bytes fit
// and nobody waits in line; nothing otherwise (the scaler then says it waits
// and calls reserve()).
#include "engine/base/memory_budget.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <stop_token>
#include <thread>

#include "thread_probe.hpp"

namespace ladder::engine {
namespace {

TEST(MemoryBudgetTry, ReservesWhatFitsAndNothingMore) {
    MemoryBudget budget(100);
    auto a = budget.try_reserve(60);
    ASSERT_TRUE(a);
    EXPECT_EQ(budget.used(), 60u);
    EXPECT_FALSE(budget.try_reserve(41)) << "41 more bytes do not fit";
    auto b = budget.try_reserve(40);
    ASSERT_TRUE(b);
    EXPECT_EQ(budget.peak(), 100u);
    a.reset();
    EXPECT_EQ(budget.used(), 40u) << "the reservation gives its bytes back";
    EXPECT_THROW((void)budget.try_reserve(101), std::logic_error);
}

TEST(MemoryBudgetTry, DoesNotJumpTheLine) {
    MemoryBudget budget(100);
    auto held = budget.try_reserve(80);
    ASSERT_TRUE(held);
    test::BlockProbe probe;
    std::optional<BudgetReservation> waited;
    std::jthread waiter([&] {
        probe.arm();
        waited = budget.reserve(50, {});
    });
    ASSERT_EQ(test::wait_until_blocked(probe), test::ProbeResult::blocked);
    EXPECT_FALSE(budget.try_reserve(10)) << "10 bytes fit, but a reserve() waits before it";
    held.reset();
    waiter.join();
    EXPECT_TRUE(waited);
    EXPECT_TRUE(budget.try_reserve(10));
}

}  // namespace
}  // namespace ladder::engine
