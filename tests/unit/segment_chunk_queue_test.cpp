// SegmentChunkQueue: FIFO order, requeue at the front, close/drain semantics,
// backpressure (push blocks while full), and cancellation of blocked calls.
#include "engine/schedule/segment_chunk_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <stop_token>
#include <thread>
#include <vector>

#include "thread_probe.hpp"

using ladder::engine::RawChunk;
using ladder::engine::SegmentChunkQueue;
using ladder::test::BlockProbe;
using ladder::test::ProbeResult;
using ladder::test::wait_until_blocked;

namespace {

RawChunk chunk(int index, int rung = 0) {
    RawChunk c;
    c.rung = rung;
    c.index = index;
    c.first_frame = static_cast<std::int64_t>(index) * 48;
    return c;
}

std::vector<int> pop_all(SegmentChunkQueue& q) {
    std::vector<int> out;
    while (auto c = q.try_pop()) out.push_back(c->index);
    return out;
}

}  // namespace

TEST(SegmentChunkQueue, StartsEmptyAndOpen) {
    SegmentChunkQueue q(4);
    EXPECT_EQ(q.size(), 0u);
    EXPECT_EQ(q.front_index(), -1);
    EXPECT_FALSE(q.closed());
    EXPECT_FALSE(q.drained());
    EXPECT_FALSE(q.try_pop().has_value());
}

TEST(SegmentChunkQueue, IsFifo) {
    SegmentChunkQueue q(8);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(q.push(chunk(i)));
    EXPECT_EQ(q.size(), 5u);
    EXPECT_EQ(q.front_index(), 0);
    for (int i = 0; i < 5; ++i) {
        auto c = q.pop();
        ASSERT_TRUE(c.has_value());
        EXPECT_EQ(c->index, i);
        EXPECT_EQ(c->first_frame, i * 48);
    }
    EXPECT_EQ(q.size(), 0u);
}

TEST(SegmentChunkQueue, ChunkContentsMoveThrough) {
    SegmentChunkQueue q(2);
    RawChunk c = chunk(3, 2);
    c.frames.push_back(ladder::av::make_frame());
    c.frames.push_back(ladder::av::make_frame());
    AVFrame* first = c.frames[0].get();
    c.bytes = 12345;
    ASSERT_TRUE(q.push(std::move(c)));
    auto out = q.pop();
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ(out->rung, 2);
    EXPECT_EQ(out->index, 3);
    EXPECT_EQ(out->bytes, 12345u);
    ASSERT_EQ(out->frames.size(), 2u);
    EXPECT_EQ(out->frames[0].get(), first);  // moved, not copied
}

TEST(SegmentChunkQueue, RequeueGoesToTheFront) {
    SegmentChunkQueue q(8);
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(q.push(chunk(i)));
    auto taken = q.pop();
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->index, 0);
    EXPECT_EQ(q.front_index(), 1);
    q.push_front(std::move(*taken));
    EXPECT_EQ(q.front_index(), 0);
    EXPECT_EQ(pop_all(q), (std::vector<int>{0, 1, 2, 3}));
}

TEST(SegmentChunkQueue, SeveralRequeuesKeepTheMostRecentFirst) {
    SegmentChunkQueue q(8);
    ASSERT_TRUE(q.push(chunk(5)));
    q.push_front(chunk(4));
    q.push_front(chunk(3));
    EXPECT_EQ(pop_all(q), (std::vector<int>{3, 4, 5}));
}

TEST(SegmentChunkQueue, RequeueNeverBlocksEvenWhenFull) {
    SegmentChunkQueue q(1);
    ASSERT_TRUE(q.push(chunk(1)));
    // Full: push_front must still go through at once (a worker handing back
    // a chunk must never wait for the pump).
    q.push_front(chunk(0));
    q.push_front(chunk(-1));
    EXPECT_EQ(q.size(), 3u);
    EXPECT_EQ(pop_all(q), (std::vector<int>{-1, 0, 1}));
}

TEST(SegmentChunkQueue, ZeroCapacityActsAsOne) {
    SegmentChunkQueue q(0);
    std::stop_source stop;
    ASSERT_TRUE(q.push(chunk(0), stop.get_token()));
    stop.request_stop();
    // Full at one chunk: a stopped push gives up instead of adding.
    EXPECT_FALSE(q.push(chunk(1), stop.get_token()));
    EXPECT_EQ(q.size(), 1u);
}

TEST(SegmentChunkQueue, CloseThenDrain) {
    SegmentChunkQueue q(4);
    ASSERT_TRUE(q.push(chunk(0)));
    ASSERT_TRUE(q.push(chunk(1)));
    q.close();
    EXPECT_TRUE(q.closed());
    EXPECT_FALSE(q.drained());  // closed but still holding chunks
    auto a = q.pop();
    ASSERT_TRUE(a);
    EXPECT_EQ(a->index, 0);
    auto b = q.pop();
    ASSERT_TRUE(b);
    EXPECT_EQ(b->index, 1);
    EXPECT_TRUE(q.drained());
    EXPECT_FALSE(q.pop().has_value());  // closed and drained: returns at once
    EXPECT_FALSE(q.pop().has_value());
    EXPECT_FALSE(q.try_pop().has_value());
}

TEST(SegmentChunkQueue, RequeueAfterCloseIsNotLost) {
    // The pump may close the queue while a worker still holds a chunk it then
    // fails to encode: the requeued chunk must still come out.
    SegmentChunkQueue q(4);
    ASSERT_TRUE(q.push(chunk(7)));
    auto held = q.pop();
    ASSERT_TRUE(held);
    q.close();
    EXPECT_TRUE(q.drained());
    q.push_front(std::move(*held));
    EXPECT_FALSE(q.drained());
    auto again = q.pop();
    ASSERT_TRUE(again);
    EXPECT_EQ(again->index, 7);
    EXPECT_TRUE(q.drained());
    EXPECT_FALSE(q.pop().has_value());
}

TEST(SegmentChunkQueue, PushBlocksWhileFullUntilAPop) {
    SegmentChunkQueue q(2);
    ASSERT_TRUE(q.push(chunk(0)));
    ASSERT_TRUE(q.push(chunk(1)));

    BlockProbe probe;
    std::atomic<bool> pushed{false};
    std::atomic<bool> result{false};
    std::thread producer([&] {
        probe.arm();
        result = q.push(chunk(2));
        pushed = true;
    });
    const auto state = wait_until_blocked(probe);
    // If push did not block, `pushed` is already true here (the thread sets it
    // before exiting), so this cannot pass by accident.
    EXPECT_EQ(state, ProbeResult::blocked) << to_string(state);
    EXPECT_FALSE(pushed.load());
    EXPECT_EQ(q.size(), 2u);

    auto first = q.pop();
    producer.join();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->index, 0);
    EXPECT_TRUE(pushed.load());
    EXPECT_TRUE(result.load());
    EXPECT_EQ(pop_all(q), (std::vector<int>{1, 2}));
}

TEST(SegmentChunkQueue, TryPopAlsoFreesRoomForABlockedPush) {
    SegmentChunkQueue q(1);
    ASSERT_TRUE(q.push(chunk(0)));
    BlockProbe probe;
    std::thread producer([&] {
        probe.arm();
        EXPECT_TRUE(q.push(chunk(1)));
    });
    ASSERT_EQ(wait_until_blocked(probe), ProbeResult::blocked);
    auto c = q.try_pop();
    producer.join();
    ASSERT_TRUE(c);
    EXPECT_EQ(c->index, 0);
    EXPECT_EQ(q.front_index(), 1);
}

TEST(SegmentChunkQueue, PopBlocksUntilAPush) {
    SegmentChunkQueue q(2);
    BlockProbe probe;
    std::optional<RawChunk> got;
    std::atomic<bool> returned{false};
    std::thread consumer([&] {
        probe.arm();
        got = q.pop();
        returned = true;
    });
    const auto state = wait_until_blocked(probe);
    EXPECT_EQ(state, ProbeResult::blocked) << to_string(state);
    EXPECT_FALSE(returned.load());
    ASSERT_TRUE(q.push(chunk(9)));
    consumer.join();
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->index, 9);
}

TEST(SegmentChunkQueue, CloseWakesABlockedPop) {
    SegmentChunkQueue q(2);
    BlockProbe probe;
    std::atomic<bool> returned{false};
    std::optional<RawChunk> got = chunk(-5);
    std::thread consumer([&] {
        probe.arm();
        got = q.pop();
        returned = true;
    });
    const auto state = wait_until_blocked(probe);
    EXPECT_EQ(state, ProbeResult::blocked) << to_string(state);
    EXPECT_FALSE(returned.load());
    q.close();
    consumer.join();
    EXPECT_FALSE(got.has_value());
    EXPECT_TRUE(q.drained());
}

TEST(SegmentChunkQueue, StopWakesABlockedPush) {
    SegmentChunkQueue q(1);
    ASSERT_TRUE(q.push(chunk(0)));
    BlockProbe probe;
    std::atomic<int> result{-1};
    std::jthread producer([&](std::stop_token st) {
        probe.arm();
        result = q.push(chunk(1), st) ? 1 : 0;
    });
    const auto state = wait_until_blocked(probe);
    EXPECT_EQ(state, ProbeResult::blocked) << to_string(state);
    EXPECT_EQ(result.load(), -1);
    producer.request_stop();
    producer.join();
    EXPECT_EQ(result.load(), 0);
    EXPECT_EQ(q.size(), 1u);  // the refused chunk was not added
    EXPECT_EQ(q.front_index(), 0);
}

TEST(SegmentChunkQueue, StopWakesABlockedPop) {
    SegmentChunkQueue q(1);
    BlockProbe probe;
    std::atomic<int> result{-1};
    std::jthread consumer([&](std::stop_token st) {
        probe.arm();
        result = q.pop(st).has_value() ? 1 : 0;
    });
    const auto state = wait_until_blocked(probe);
    EXPECT_EQ(state, ProbeResult::blocked) << to_string(state);
    EXPECT_EQ(result.load(), -1);
    consumer.request_stop();
    consumer.join();
    EXPECT_EQ(result.load(), 0);
    EXPECT_FALSE(q.closed());  // stopping a waiter does not close the queue
}

TEST(SegmentChunkQueue, AlreadyStoppedCallsDoNotBlock) {
    SegmentChunkQueue q(1);
    std::stop_source stop;
    stop.request_stop();
    EXPECT_FALSE(q.pop(stop.get_token()).has_value());  // empty: nothing to return
    ASSERT_TRUE(q.push(chunk(0), stop.get_token()));    // room: goes in
    EXPECT_FALSE(q.push(chunk(1), stop.get_token()));   // full: gives up
    auto c = q.pop(stop.get_token());                   // available: returned
    ASSERT_TRUE(c);
    EXPECT_EQ(c->index, 0);
}

TEST(SegmentChunkQueue, ProducerConsumerKeepsEveryChunkOnceInOrder) {
    constexpr int kChunks = 2000;
    SegmentChunkQueue q(3);
    std::thread producer([&] {
        for (int i = 0; i < kChunks; ++i) ASSERT_TRUE(q.push(chunk(i)));
        q.close();
    });
    std::vector<int> seen;
    while (auto c = q.pop()) seen.push_back(c->index);
    producer.join();
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kChunks));
    for (int i = 0; i < kChunks; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], i);
    EXPECT_TRUE(q.drained());
}

TEST(SegmentChunkQueue, ManyConsumersWithRequeuesLoseNothing) {
    constexpr int kChunks = 1000;
    SegmentChunkQueue q(4);
    std::vector<std::atomic<int>> done(kChunks);
    std::atomic<int> requeues{0};
    std::thread producer([&] {
        for (int i = 0; i < kChunks; ++i) ASSERT_TRUE(q.push(chunk(i)));
        q.close();
    });
    std::vector<std::thread> consumers;
    for (int w = 0; w < 3; ++w) {
        consumers.emplace_back([&, w] {
            int n = 0;
            while (auto c = q.pop()) {
                // Every 7th chunk a worker "fails" once and hands it back.
                if (((c->index + w) % 7 == 0) && (n++ % 2 == 0)) {
                    ++requeues;
                    q.push_front(std::move(*c));
                    continue;
                }
                done[static_cast<std::size_t>(c->index)]++;
            }
        });
    }
    producer.join();
    for (auto& t : consumers) t.join();
    for (int i = 0; i < kChunks; ++i) EXPECT_EQ(done[static_cast<std::size_t>(i)].load(), 1) << "chunk " << i;
    EXPECT_GT(requeues.load(), 0);
    EXPECT_TRUE(q.drained());
}
