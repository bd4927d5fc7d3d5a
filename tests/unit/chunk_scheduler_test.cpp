// ChunkScheduler: hands out the oldest chunk across all rungs (ties: the rung
// with more pixels first), blocks until there is one, ends when every rung's
// queue is closed and drained, and wakes on stop.
#include "engine/chunk_scheduler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <set>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#include "thread_probe.hpp"

using ladder::engine::ChunkScheduler;
using ladder::engine::RawChunk;
using ladder::test::BlockProbe;
using ladder::test::ProbeResult;
using ladder::test::wait_until_blocked;

namespace {

RawChunk chunk(int rung, int index) {
    RawChunk c;
    c.rung = rung;
    c.index = index;
    return c;
}

using Pick = std::pair<int, int>;  // (rung, index)

Pick pick(const std::optional<RawChunk>& c) { return c ? Pick{c->rung, c->index} : Pick{-1, -1}; }

constexpr std::int64_t k1080 = 1920 * 1080;
constexpr std::int64_t k720 = 1280 * 720;
constexpr std::int64_t k360 = 640 * 360;

}  // namespace

TEST(ChunkScheduler, OwnsOneQueuePerRung) {
    ChunkScheduler s({k1080, k720, k360}, 2);
    EXPECT_EQ(s.rung_count(), 3u);
    EXPECT_NE(&s.queue(0), &s.queue(1));
    EXPECT_EQ(s.queue(2).size(), 0u);
}

TEST(ChunkScheduler, OldestChunkFirstAcrossRungs) {
    ChunkScheduler s({k1080, k720}, 8);
    ASSERT_TRUE(s.queue(0).push(chunk(0, 1)));
    ASSERT_TRUE(s.queue(0).push(chunk(0, 2)));
    ASSERT_TRUE(s.queue(1).push(chunk(1, 0)));
    ASSERT_TRUE(s.queue(1).push(chunk(1, 1)));
    std::stop_source stop;
    std::vector<Pick> order;
    for (int i = 0; i < 4; ++i) order.push_back(pick(s.next(stop.get_token())));
    EXPECT_EQ(order, (std::vector<Pick>{{1, 0}, {0, 1}, {1, 1}, {0, 2}}));
}

TEST(ChunkScheduler, TiesGoToTheRungWithMorePixels) {
    // Rungs listed smallest first, so rung order alone would pick the wrong one.
    ChunkScheduler s({k360, k1080, k720}, 8);
    for (int r = 0; r < 3; ++r)
        for (int i = 0; i < 2; ++i) ASSERT_TRUE(s.queue(r).push(chunk(r, i)));
    std::stop_source stop;
    std::vector<Pick> order;
    for (int i = 0; i < 6; ++i) order.push_back(pick(s.next(stop.get_token())));
    EXPECT_EQ(order, (std::vector<Pick>{{1, 0}, {2, 0}, {0, 0}, {1, 1}, {2, 1}, {0, 1}}));
}

TEST(ChunkScheduler, RequeuedChunkIsOldestAgain) {
    ChunkScheduler s({k720, k360}, 8);
    ASSERT_TRUE(s.queue(0).push(chunk(0, 0)));
    ASSERT_TRUE(s.queue(1).push(chunk(1, 0)));
    std::stop_source stop;
    auto first = s.next(stop.get_token());
    EXPECT_EQ(pick(first), (Pick{0, 0}));
    ASSERT_TRUE(s.queue(0).push(chunk(0, 1)));
    // The worker fails on chunk 0 of rung 0 and hands it back.
    s.queue(0).push_front(std::move(*first));
    std::vector<Pick> order;
    for (int i = 0; i < 3; ++i) order.push_back(pick(s.next(stop.get_token())));
    EXPECT_EQ(order, (std::vector<Pick>{{0, 0}, {1, 0}, {0, 1}}));
}

TEST(ChunkScheduler, EndsWhenEveryQueueIsClosedAndDrained) {
    ChunkScheduler s({k720, k360}, 4);
    ASSERT_TRUE(s.queue(0).push(chunk(0, 0)));
    s.queue(0).close();
    s.queue(1).close();
    std::stop_source stop;
    EXPECT_EQ(pick(s.next(stop.get_token())), (Pick{0, 0}));
    EXPECT_FALSE(s.next(stop.get_token()).has_value());
    EXPECT_FALSE(s.next(stop.get_token()).has_value());
}

TEST(ChunkScheduler, NoRungsMeansNothingToDo) {
    ChunkScheduler s({}, 4);
    std::stop_source stop;
    EXPECT_FALSE(s.next(stop.get_token()).has_value());
}

TEST(ChunkScheduler, NextBlocksUntilAPush) {
    ChunkScheduler s({k1080, k720, k360}, 4);
    BlockProbe probe;
    std::atomic<bool> returned{false};
    std::optional<RawChunk> got;
    std::thread worker([&] {
        std::stop_source never;
        probe.arm();
        got = s.next(never.get_token());
        returned = true;
    });
    const auto state = wait_until_blocked(probe);
    EXPECT_EQ(state, ProbeResult::blocked) << to_string(state);
    EXPECT_FALSE(returned.load());
    ASSERT_TRUE(s.queue(2).push(chunk(2, 0)));
    worker.join();
    EXPECT_EQ(pick(got), (Pick{2, 0}));
}

TEST(ChunkScheduler, NextKeepsWaitingWhileSomeQueueIsOpen) {
    ChunkScheduler s({k720, k360}, 4);
    s.queue(0).close();
    BlockProbe probe;
    std::atomic<bool> returned{false};
    std::optional<RawChunk> got;
    std::thread worker([&] {
        std::stop_source never;
        probe.arm();
        got = s.next(never.get_token());
        returned = true;
    });
    ASSERT_EQ(wait_until_blocked(probe), ProbeResult::blocked);
    EXPECT_FALSE(returned.load());
    // Closing the last open queue ends the wait with nothing.
    s.queue(1).close();
    worker.join();
    EXPECT_FALSE(got.has_value());
}

TEST(ChunkScheduler, StopWakesABlockedNext) {
    ChunkScheduler s({k720}, 4);
    BlockProbe probe;
    std::atomic<int> result{-1};
    std::jthread worker([&](std::stop_token st) {
        probe.arm();
        result = s.next(st).has_value() ? 1 : 0;
    });
    ASSERT_EQ(wait_until_blocked(probe), ProbeResult::blocked);
    EXPECT_EQ(result.load(), -1);
    worker.request_stop();
    worker.join();
    EXPECT_EQ(result.load(), 0);
}

TEST(ChunkScheduler, WorkersAndPumpHandOutEveryChunkExactlyOnce) {
    constexpr int kRungs = 3;
    constexpr int kChunks = 300;
    ChunkScheduler s({k1080, k720, k360}, 2);
    std::vector<std::atomic<int>> seen(kRungs * kChunks);

    // The pump: chunk k of every rung, in frame order, blocking on full queues.
    std::thread pump([&] {
        for (int i = 0; i < kChunks; ++i)
            for (int r = 0; r < kRungs; ++r) ASSERT_TRUE(s.queue(r).push(chunk(r, i)));
        for (int r = 0; r < kRungs; ++r) s.queue(r).close();
    });
    std::vector<std::jthread> workers;
    std::atomic<int> requeued{0};
    std::atomic<int> handouts{0};
    for (int w = 0; w < 3; ++w) {
        workers.emplace_back([&](std::stop_token st) {
            while (auto c = s.next(st)) {
                // Every 11th handout fails on whichever worker got it (a flaky
                // device) and goes back to the front of its rung's queue.
                if (handouts.fetch_add(1) % 11 == 10) {
                    ++requeued;
                    s.queue(c->rung).push_front(std::move(*c));
                    continue;
                }
                seen[static_cast<std::size_t>(c->rung * kChunks + c->index)]++;
            }
        });
    }
    pump.join();
    for (auto& w : workers) w.join();
    for (int r = 0; r < kRungs; ++r)
        for (int i = 0; i < kChunks; ++i)
            EXPECT_EQ(seen[static_cast<std::size_t>(r * kChunks + i)].load(), 1) << "rung " << r << " chunk " << i;
    EXPECT_GT(requeued.load(), 0);
}
