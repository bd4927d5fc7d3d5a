// GpuPool / GpuLease: FIFO-fair claims, primaries before helpers, RAII return
// of slots (also on exceptions), cancellation of blocked claims, and mutual
// exclusion per slot under contention.
#include "gpu/gpu_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "thread_probe.hpp"

using ladder::gpu::ClaimPriority;
using ladder::gpu::DeviceKind;
using ladder::gpu::EncoderSlot;
using ladder::gpu::GpuLease;
using ladder::gpu::GpuPool;
using ladder::test::BlockProbe;
using ladder::test::ProbeResult;
using ladder::test::wait_until_blocked;

namespace {

std::vector<EncoderSlot> cpu_slots(int n) {
    std::vector<EncoderSlot> slots;
    for (int i = 0; i < n; ++i) {
        EncoderSlot s;
        s.id = 100 + i;  // the pool renumbers
        s.kind = DeviceKind::cpu;
        s.set_encoder("libsvtav1");
        s.threads = 2;
        s.label = "cpu" + std::to_string(i) + ":svt";
        slots.push_back(s);
    }
    return slots;
}

// Threads that claim a lease, record the order in which they got it, and
// hold it until told to let go.
class Claimers {
public:
    explicit Claimers(GpuPool& pool) : pool_(pool) {}
    ~Claimers() { join(); }

    // Starts claimer `name` and returns once it is blocked inside claim().
    void start_and_wait_blocked(const std::string& name, ClaimPriority priority) {
        auto probe = std::make_unique<BlockProbe>();
        BlockProbe* p = probe.get();
        probes_.push_back(std::move(probe));
        threads_.emplace_back([this, name, priority, p] {
            p->arm();
            auto lease = pool_.claim(priority);
            ASSERT_TRUE(lease.has_value());
            {
                std::lock_guard lock(mu_);
                order_.push_back(name);
            }
            // Give it back at once so the next in line can go.
        });
        const auto state = wait_until_blocked(*p);
        ASSERT_EQ(state, ProbeResult::blocked) << name << ": " << to_string(state);
        std::lock_guard lock(mu_);
        ASSERT_TRUE(order_.empty()) << name << " got a lease although every slot is held";
    }

    void join() {
        for (auto& t : threads_)
            if (t.joinable()) t.join();
    }

    std::vector<std::string> order() {
        std::lock_guard lock(mu_);
        return order_;
    }

private:
    GpuPool& pool_;
    std::mutex mu_;
    std::vector<std::string> order_;
    std::vector<std::unique_ptr<BlockProbe>> probes_;
    std::vector<std::thread> threads_;
};

}  // namespace

TEST(GpuPool, RefusesAnEmptySlotList) { EXPECT_THROW(GpuPool({}), std::invalid_argument); }

TEST(GpuPool, SlotsAreRenumberedAndKept) {
    GpuPool pool(cpu_slots(3));
    ASSERT_EQ(pool.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(pool.slots()[static_cast<std::size_t>(i)].id, i);
        EXPECT_EQ(pool.slots()[static_cast<std::size_t>(i)].label, "cpu" + std::to_string(i) + ":svt");
    }
    EXPECT_EQ(pool.available(), 3u);
    EXPECT_EQ(pool.leases_granted(), 0u);
}

TEST(GpuPool, ClaimAndReleaseByScope) {
    GpuPool pool(cpu_slots(2));
    {
        auto a = pool.claim(ClaimPriority::primary);
        ASSERT_TRUE(a.has_value());
        ASSERT_TRUE(static_cast<bool>(*a));
        EXPECT_EQ(pool.available(), 1u);
        auto b = pool.claim(ClaimPriority::helper);
        ASSERT_TRUE(b.has_value());
        EXPECT_NE(a->slot().id, b->slot().id);
        EXPECT_EQ(pool.available(), 0u);
        EXPECT_EQ(pool.leases_granted(), 2u);
    }
    EXPECT_EQ(pool.available(), 2u);
    EXPECT_EQ(pool.leases_granted(), 2u);
}

TEST(GpuPool, TryClaim) {
    GpuPool pool(cpu_slots(1));
    auto a = pool.try_claim(ClaimPriority::primary);
    ASSERT_TRUE(a.has_value());
    EXPECT_FALSE(pool.try_claim(ClaimPriority::primary).has_value());
    EXPECT_FALSE(pool.try_claim(ClaimPriority::helper).has_value());
    a->release();
    auto b = pool.try_claim(ClaimPriority::helper);
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(pool.leases_granted(), 2u);
}

TEST(GpuPool, LeaseIsMoveOnlyAndReleasesOnce) {
    static_assert(!std::is_copy_constructible_v<GpuLease>);
    static_assert(!std::is_copy_assignable_v<GpuLease>);
    static_assert(std::is_nothrow_move_constructible_v<GpuLease>);
    static_assert(std::is_nothrow_move_assignable_v<GpuLease>);

    GpuPool pool(cpu_slots(2));
    auto a = pool.claim(ClaimPriority::primary);
    ASSERT_TRUE(a);
    const int slot = a->slot().id;
    GpuLease moved = std::move(*a);
    EXPECT_FALSE(static_cast<bool>(*a));  // NOLINT(bugprone-use-after-move): moved-from state is specified
    EXPECT_THROW((void)a->slot(), std::logic_error);
    EXPECT_TRUE(static_cast<bool>(moved));
    EXPECT_EQ(moved.slot().id, slot);
    EXPECT_EQ(pool.available(), 1u);
    a->release();  // releasing an empty lease is a no-op
    EXPECT_EQ(pool.available(), 1u);
    moved.release();
    EXPECT_EQ(pool.available(), 2u);
    moved.release();  // twice: still one slot returned
    EXPECT_EQ(pool.available(), 2u);

    // Move assignment gives back the slot the target held.
    auto x = pool.claim(ClaimPriority::primary);
    auto y = pool.claim(ClaimPriority::primary);
    ASSERT_TRUE(x && y);
    EXPECT_EQ(pool.available(), 0u);
    *x = std::move(*y);
    EXPECT_EQ(pool.available(), 1u);
    EXPECT_TRUE(static_cast<bool>(*x));
    EXPECT_FALSE(static_cast<bool>(*y));  // NOLINT(bugprone-use-after-move)
    x->release();
    EXPECT_EQ(pool.available(), 2u);
}

TEST(GpuPool, LeaseReturnsItsSlotWhenAnExceptionUnwinds) {
    GpuPool pool(cpu_slots(2));
    try {
        auto lease = pool.claim(ClaimPriority::primary);
        ASSERT_TRUE(lease);
        auto lease2 = pool.try_claim(ClaimPriority::helper);
        ASSERT_TRUE(lease2);
        EXPECT_EQ(pool.available(), 0u);
        throw std::runtime_error("encoder crashed mid-chunk");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(pool.available(), 2u);
    // And the slots can be claimed again.
    auto again = pool.try_claim(ClaimPriority::primary);
    EXPECT_TRUE(again.has_value());
}

TEST(GpuPool, LeaseReturnsItsSlotWhenAThreadThrows) {
    GpuPool pool(cpu_slots(1));
    std::exception_ptr error;
    std::thread t([&] {
        try {
            auto lease = pool.claim(ClaimPriority::helper);
            throw std::runtime_error("boom");
        } catch (...) {
            error = std::current_exception();
        }
    });
    t.join();
    EXPECT_TRUE(error);
    EXPECT_EQ(pool.available(), 1u);
}

TEST(GpuPool, WaitingClaimersAreServedFirstInFirstOut) {
    GpuPool pool(cpu_slots(1));
    auto held = pool.claim(ClaimPriority::primary);
    ASSERT_TRUE(held);
    Claimers claimers(pool);
    claimers.start_and_wait_blocked("A", ClaimPriority::primary);
    claimers.start_and_wait_blocked("B", ClaimPriority::primary);
    claimers.start_and_wait_blocked("C", ClaimPriority::primary);
    claimers.start_and_wait_blocked("D", ClaimPriority::primary);
    EXPECT_EQ(pool.available(), 0u);
    held->release();
    claimers.join();
    EXPECT_EQ(claimers.order(), (std::vector<std::string>{"A", "B", "C", "D"}));
    EXPECT_EQ(pool.available(), 1u);
    EXPECT_EQ(pool.leases_granted(), 5u);
}

TEST(GpuPool, WaitingHelpersAreServedFirstInFirstOut) {
    GpuPool pool(cpu_slots(1));
    auto held = pool.claim(ClaimPriority::primary);
    ASSERT_TRUE(held);
    Claimers claimers(pool);
    claimers.start_and_wait_blocked("H1", ClaimPriority::helper);
    claimers.start_and_wait_blocked("H2", ClaimPriority::helper);
    claimers.start_and_wait_blocked("H3", ClaimPriority::helper);
    held->release();
    claimers.join();
    EXPECT_EQ(claimers.order(), (std::vector<std::string>{"H1", "H2", "H3"}));
}

TEST(GpuPool, WaitingPrimaryGoesBeforeAWaitingHelper) {
    GpuPool pool(cpu_slots(1));
    auto held = pool.claim(ClaimPriority::primary);
    ASSERT_TRUE(held);
    Claimers claimers(pool);
    claimers.start_and_wait_blocked("helper1", ClaimPriority::helper);  // waited first
    claimers.start_and_wait_blocked("helper2", ClaimPriority::helper);
    claimers.start_and_wait_blocked("primary1", ClaimPriority::primary);
    claimers.start_and_wait_blocked("primary2", ClaimPriority::primary);
    held->release();
    claimers.join();
    EXPECT_EQ(claimers.order(), (std::vector<std::string>{"primary1", "primary2", "helper1", "helper2"}));
}

TEST(GpuPool, StopCancelsABlockedClaimAndThePoolStillWorks) {
    GpuPool pool(cpu_slots(1));
    auto held = pool.claim(ClaimPriority::primary);
    ASSERT_TRUE(held);

    BlockProbe probe;
    std::atomic<int> result{-1};
    std::jthread canceller([&](std::stop_token st) {
        probe.arm();
        result = pool.claim(ClaimPriority::primary, st).has_value() ? 1 : 0;
    });
    ASSERT_EQ(wait_until_blocked(probe), ProbeResult::blocked);
    EXPECT_EQ(result.load(), -1);
    canceller.request_stop();
    canceller.join();
    EXPECT_EQ(result.load(), 0);
    EXPECT_EQ(pool.available(), 0u);
    EXPECT_EQ(pool.leases_granted(), 1u);

    held->release();
    EXPECT_EQ(pool.available(), 1u);
    // The cancelled claimer left the line: nobody is ahead of a new claim.
    auto next = pool.try_claim(ClaimPriority::primary);
    EXPECT_TRUE(next.has_value());
    next.reset();
    auto blocking = pool.claim(ClaimPriority::helper);
    EXPECT_TRUE(blocking.has_value());
}

TEST(GpuPool, CancelledClaimerDoesNotBlockThoseBehindIt) {
    GpuPool pool(cpu_slots(1));
    auto held = pool.claim(ClaimPriority::primary);
    ASSERT_TRUE(held);

    BlockProbe first_probe;
    std::atomic<int> first_result{-1};
    std::jthread first([&](std::stop_token st) {
        first_probe.arm();
        first_result = pool.claim(ClaimPriority::primary, st).has_value() ? 1 : 0;
    });
    ASSERT_EQ(wait_until_blocked(first_probe), ProbeResult::blocked);

    Claimers behind(pool);
    behind.start_and_wait_blocked("second", ClaimPriority::primary);
    behind.start_and_wait_blocked("helper", ClaimPriority::helper);

    // Cancel the head of the line first, then free the slot.
    first.request_stop();
    first.join();
    EXPECT_EQ(first_result.load(), 0);
    held->release();
    behind.join();
    EXPECT_EQ(behind.order(), (std::vector<std::string>{"second", "helper"}));
    EXPECT_EQ(pool.available(), 1u);
}

TEST(GpuPool, AlreadyStoppedClaimReturnsAtOnceWhenNothingIsFree) {
    GpuPool pool(cpu_slots(1));
    auto held = pool.claim(ClaimPriority::primary);
    std::stop_source stop;
    stop.request_stop();
    EXPECT_FALSE(pool.claim(ClaimPriority::primary, stop.get_token()).has_value());
    EXPECT_FALSE(pool.claim(ClaimPriority::helper, stop.get_token()).has_value());
    held.reset();
    // The refused claims did not leave stale entries in the line.
    EXPECT_TRUE(pool.try_claim(ClaimPriority::helper).has_value());
}

TEST(GpuPool, StressEachSlotHasOneHolderAtATime) {
    constexpr int kThreads = 8;
    constexpr int kClaims = 1000;
    constexpr int kSlots = 3;
    GpuPool pool(cpu_slots(kSlots));
    std::vector<std::atomic<bool>> in_use(kSlots);
    std::atomic<int> concurrent{0};
    std::atomic<int> max_concurrent{0};
    std::atomic<int> violations{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            const auto priority = (t % 2 == 0) ? ClaimPriority::primary : ClaimPriority::helper;
            for (int i = 0; i < kClaims; ++i) {
                auto lease = pool.claim(priority);
                if (!lease) {
                    ++violations;
                    continue;
                }
                const int slot = lease->slot().id;
                if (in_use[static_cast<std::size_t>(slot)].exchange(true)) ++violations;
                const int now = ++concurrent;
                int seen = max_concurrent.load();
                while (now > seen && !max_concurrent.compare_exchange_weak(seen, now)) {
                }
                if (now > kSlots) ++violations;
                if (i % 16 == 0) std::this_thread::yield();
                --concurrent;
                in_use[static_cast<std::size_t>(slot)].store(false);
                // The lease goes back here (end of scope).
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(violations.load(), 0);
    EXPECT_LE(max_concurrent.load(), kSlots);
    EXPECT_EQ(pool.available(), static_cast<std::size_t>(kSlots));
    EXPECT_EQ(pool.leases_granted(), static_cast<std::uint64_t>(kThreads) * kClaims);
}

namespace ladder::gpu {
namespace {

TEST(GpuPoolRetire, ARetiredSlotNeverComesBack) {
    GpuPool pool({EncoderSlot{}, EncoderSlot{}});
    auto a = pool.try_claim(ClaimPriority::primary);
    ASSERT_TRUE(a);
    const int retired = a->slot().id;
    a->retire();
    EXPECT_FALSE(static_cast<bool>(*a));
    EXPECT_EQ(pool.available(), 1u);
    for (int i = 0; i < 5; ++i) {
        auto b = pool.try_claim(ClaimPriority::helper);
        ASSERT_TRUE(b);
        EXPECT_NE(b->slot().id, retired);
    }
    auto c = pool.try_claim(ClaimPriority::primary);
    auto d = pool.try_claim(ClaimPriority::primary);
    EXPECT_TRUE(c.has_value());
    EXPECT_FALSE(d.has_value()) << "one slot left";
}

}  // namespace
}  // namespace ladder::gpu
