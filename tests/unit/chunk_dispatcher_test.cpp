// ChunkDispatcher: which chunk each worker encodes next, refusals, retries
// on another slot, orphaned rungs, fixed vs helper dispatch.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "engine/schedule/chunk_dispatcher.hpp"
#include "engine/base/errors.hpp"
#include "thread_probe.hpp"

namespace ladder::engine {
namespace {

RawChunk chunk(int rung, int index, int frames = 4) {
    RawChunk c;
    c.rung = rung;
    c.index = index;
    c.first_frame = static_cast<std::int64_t>(index) * frames;
    for (int i = 0; i < frames; ++i) c.frames.push_back(av::make_frame());
    return c;
}

std::vector<RungPlan> plans(std::initializer_list<std::int64_t> pixels, std::int64_t frames = 40) {
    std::vector<RungPlan> p;
    int i = 0;
    for (auto px : pixels) p.push_back({"r" + std::to_string(i++), px, frames});
    return p;
}

TEST(ChunkDispatcher, WorkerStaysOnItsRungWhileChunksAreReady) {
    ChunkDispatcher d(plans({100, 100}), 10, DispatchMode::helpers, 3, 1);
    d.queue(0).push(chunk(0, 0));
    d.queue(0).push(chunk(0, 1));
    d.queue(1).push(chunk(1, 0));
    const int w = d.add_worker("svt", -1);
    auto a = d.next(w, {});
    ASSERT_TRUE(a);
    d.done(w, *a, 1.0);
    auto b = d.next(w, {});
    ASSERT_TRUE(b);
    EXPECT_EQ(b->rung, a->rung) << "affinity: the rung still had a chunk ready";
    d.done(w, *b, 1.0);
    auto c = d.next(w, {});
    ASSERT_TRUE(c);
    EXPECT_NE(c->rung, a->rung) << "it leaves once its rung has nothing ready";
}

TEST(ChunkDispatcher, FreedWorkerJoinsTheRungWithTheMostRemainingTime) {
    // Rung 0 is big and has a (measured) worker on it; rung 1 is small and
    // has a worker too; a third worker goes where the remaining time is longest.
    ChunkDispatcher d(plans({1000, 10}, 100), 100, DispatchMode::helpers, 3, 3);
    for (int k = 0; k < 5; ++k) {
        d.queue(0).push(chunk(0, k));
        d.queue(1).push(chunk(1, k));
    }
    const int w0 = d.add_worker("svt", -1);
    const int w1 = d.add_worker("svt", -1);
    auto c0 = d.next(w0, {});
    auto c1 = d.next(w1, {});
    ASSERT_TRUE(c0 && c1);
    EXPECT_NE(c0->rung, c1->rung) << "a rung nobody works on goes first";
    const int w2 = d.add_worker("svt", -1);
    auto c2 = d.next(w2, {});
    ASSERT_TRUE(c2);
    EXPECT_EQ(c2->rung, 0) << "1000 px x 100 frames is the longest remaining time";
}

// The tail cases (a free slot takes the last chunk, or leaves it to a faster
// one about to finish) depend on the time: schedule_policy_test.cpp asks the
// policy with the time in the state.

TEST(ChunkDispatcher, OnceEverythingIsQueuedTheBiggestChunksGoFirst) {
    // While the source is being decoded a worker stays on its rung; once
    // every queue is closed it takes the biggest chunk there is, so the run
    // ends on the small ones.
    ChunkDispatcher d(plans({10, 1000}, 100), 100, DispatchMode::helpers, 3, 1);
    for (int k = 0; k < 3; ++k) d.queue(0).push(chunk(0, k));
    d.queue(1).push(chunk(1, 0));
    const int w = d.add_worker("svt", -1);
    auto first = d.next(w, {});
    ASSERT_TRUE(first);
    EXPECT_EQ(first->rung, 1) << "a rung nobody works on, the biggest first";
    d.done(w, *first, 1.0);
    auto second = d.next(w, {});
    ASSERT_TRUE(second);
    EXPECT_EQ(second->rung, 0);
    d.done(w, *second, 1.0);
    d.queue(1).push(chunk(1, 1));
    auto third = d.next(w, {});
    ASSERT_TRUE(third);
    EXPECT_EQ(third->rung, 0) << "affinity while more may arrive";
    d.done(w, *third, 1.0);
    d.queue(1).push(chunk(1, 2));
    d.queue(0).close();
    d.queue(1).close();
    auto fourth = d.next(w, {});
    ASSERT_TRUE(fourth);
    EXPECT_EQ(fourth->rung, 1) << "everything queued: the 1000 px chunks before the 10 px one";
    d.done(w, *fourth, 1.0);
    auto fifth = d.next(w, {});
    ASSERT_TRUE(fifth);
    EXPECT_EQ(fifth->rung, 1);
}

TEST(ChunkDispatcher, RefusedChunkGoesBackFirstAndTheKindNeverReturns) {
    ChunkDispatcher d(plans({100}), 10, DispatchMode::helpers, 3, 2);
    d.queue(0).push(chunk(0, 0));
    d.queue(0).push(chunk(0, 1));
    const int aom = d.add_worker("aom", -1);
    const int svt = d.add_worker("svt", -1);
    auto c = d.next(aom, {});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->index, 0);
    d.refused(aom, std::move(*c));
    EXPECT_EQ(d.queued_chunks(), 2u) << "requeued";
    auto again = d.next(svt, {});
    ASSERT_TRUE(again);
    EXPECT_EQ(again->index, 0);
    d.done(svt, *again, 1.0);
    d.queue(0).close();
    // aom may not take chunk 1 of this rung; with nothing else it may do, it leaves.
    EXPECT_FALSE(d.next(aom, {}).has_value());
    auto last = d.next(svt, {});
    ASSERT_TRUE(last);
    EXPECT_EQ(last->index, 1);
}

TEST(ChunkDispatcher, FailedChunkIsRetriedOnAnotherSlotThenFailsTheRun) {
    ChunkDispatcher d(plans({100}), 10, DispatchMode::helpers, 2, 2);
    d.queue(0).push(chunk(0, 0));
    d.queue(0).push(chunk(0, 1));
    const int a = d.add_worker("svt", -1);
    const int b = d.add_worker("svt", -1);
    auto c = d.next(a, {});
    ASSERT_TRUE(c);
    d.failed(a, std::move(*c), "a: boom");
    EXPECT_EQ(d.queued_chunks(), 2u) << "back in its queue";
    // Slot a does not get it back while slot b could take it.
    std::optional<RawChunk> for_a;
    std::atomic<bool> a_saw_failure{false};
    std::jthread waiting([&] {
        try {
            for_a = d.next(a, {});
        } catch (const RunError&) {
            a_saw_failure = true;
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(for_a.has_value());
    auto retry = d.next(b, {});
    ASSERT_TRUE(retry);
    EXPECT_EQ(retry->index, 0);
    try {
        d.failed(b, std::move(*retry), "b: boom");
        FAIL() << "max_tries = 2 reached";
    } catch (const RunError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("rung r0: chunk 0 failed on all 2 tries"), std::string::npos) << msg;
        EXPECT_NE(msg.find("a: boom"), std::string::npos) << msg;
        EXPECT_NE(msg.find("b: boom"), std::string::npos) << msg;
    }
    waiting.join();
    // Chunk 1 reached the front when b took chunk 0: slot a either took it
    // before b's failure ended the run (seen under load in CI) or was woken by
    // that failure. It never gets chunk 0 back.
    if (for_a)
        EXPECT_EQ(for_a->index, 1);
    else
        EXPECT_TRUE(a_saw_failure) << "the failure wakes slot a";
    EXPECT_THROW(d.next(a, {}), RunError) << "every worker learns the run failed";
}

// Helper threads claim whichever slot the pool gives them. A thread on
// slot a that failed chunk 0 leaves it to slot b and gives a back; while b
// is idle (no thread holds it: its thread gave it back too and waits), the
// wait returns at once instead of blocking on a change that never comes (a
// failing run hung so under load, ProgressReport.FailedRunWritesAPartial...).
TEST(ChunkDispatcher, AWaitReturnsWhileAChunkWaitsForAnIdleSlot) {
    ChunkDispatcher d(plans({100}), 10, DispatchMode::helpers, 2, 2);
    d.queue(0).push(chunk(0, 0));
    d.queue(0).close();
    const int a = d.add_worker("svt", -1);
    const int b = d.add_worker("svt", -1);
    bool finished = false;
    std::uint64_t observed = 0;
    auto c = d.try_next(a, finished, observed);
    ASSERT_TRUE(c);
    d.failed(a, std::move(*c), "a: boom");
    EXPECT_FALSE(d.try_next(a, finished, observed).has_value()) << "slot b could take it";
    EXPECT_FALSE(finished);
    // No change will come: only a thread on slot b can take chunk 0. The
    // wait must not block (stop after 60 s turns a hang into a failure).
    std::stop_source deadline;
    std::jthread guard([&deadline](std::stop_token done) {
        std::mutex m;
        std::unique_lock lock(m);
        std::condition_variable_any cv;
        cv.wait_for(lock, done, std::chrono::seconds(60), [] { return false; });
        if (!done.stop_requested()) deadline.request_stop();
    });
    EXPECT_TRUE(d.wait_for_change(a, observed, deadline.get_token())) << "blocked: slot b's chunk was never seen";
    guard.request_stop();
    auto retry = d.try_next(b, finished, observed);
    ASSERT_TRUE(retry);
    EXPECT_EQ(retry->index, 0);
}

TEST(ChunkDispatcher, AnEncoderThatWouldNotOpenDoesNotUseUpTheChunksTries) {
    // max_tries 2; three slots whose encoders are refused (a session cap)
    // and a fourth that opens: the chunk reaches the fourth.
    ChunkDispatcher d(plans({100}), 10, DispatchMode::helpers, 2, 4);
    d.queue(0).push(chunk(0, 0));
    d.queue(0).close();
    std::vector<int> refused;
    for (int i = 0; i < 3; ++i) refused.push_back(d.add_worker("av1_nvenc", -1));
    const int opens = d.add_worker("av1_nvenc", -1);
    for (int w : refused) {
        auto c = d.next(w, {});
        ASSERT_TRUE(c) << "slot " << w;
        EXPECT_NO_THROW(d.failed(w, std::move(*c), "would not open", false));
    }
    auto c = d.next(opens, {});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->index, 0);
    // A failure of the chunk itself still counts.
    EXPECT_NO_THROW(d.failed(opens, std::move(*c), "boom"));
    auto again = d.next(opens, {});
    ASSERT_TRUE(again);
    EXPECT_THROW(d.failed(opens, std::move(*again), "boom"), RunError);
}

// A worker with nothing left it may do asks all_finished() and, on true,
// ends every slot's lease claims. A chunk on its way between its queue and a
// worker must keep its rung unfinished, or the slots retire while the chunk
// still has tries to come (a hang, or a false "no encoder slot left"). The
// board moves a chunk out of its queue or back and counts it in flight in
// one step under its one lock: what another worker sees once a call returns
// is what it could see at any moment.
struct HandoverWatch {
    ChunkDispatcher d{plans({100}), 10, DispatchMode::helpers, 3, 2};
    std::vector<std::string> seen_finished;  // steps after which all_finished() answered true

    HandoverWatch() {
        // One chunk and nothing more to come: only that chunk keeps the rung open.
        d.queue(0).push(chunk(0, 0));
        d.queue(0).close();
    }
    void after(const std::string& step) {
        if (d.all_finished()) seen_finished.push_back(step);
    }
};

TEST(ChunkDispatcher, AChunkTakenOrFailedIsNeverInvisible) {
    HandoverWatch h;
    const int a = h.d.add_worker("svt", -1);
    const int b = h.d.add_worker("svt", -1);
    auto first = h.d.next(a, {});
    ASSERT_TRUE(first);
    h.after("next: taken by a");
    h.d.failed(a, std::move(*first), "a: boom");
    h.after("failed: handed back by a");
    bool finished = true;
    std::uint64_t observed = 0;
    auto retry = h.d.try_next(b, finished, observed);
    ASSERT_TRUE(retry);
    h.after("try_next: taken by b");
    EXPECT_EQ(h.seen_finished, std::vector<std::string>{}) << "all_finished() with the rung's only chunk in hand";
    h.d.done(b, *retry, 1.0);
    EXPECT_TRUE(h.d.all_finished()) << "accepted: nothing can come back";
}

TEST(ChunkDispatcher, ARefusedChunkIsNeverInvisible) {
    HandoverWatch h;
    const int aom = h.d.add_worker("aom", -1);
    const int svt = h.d.add_worker("svt", -1);
    auto first = h.d.next(aom, {});
    ASSERT_TRUE(first);
    h.after("next: taken by aom");
    h.d.refused(aom, std::move(*first));
    h.after("refused: handed back by aom");
    auto again = h.d.next(svt, {});
    ASSERT_TRUE(again);
    h.after("next: taken by svt");
    EXPECT_EQ(h.seen_finished, std::vector<std::string>{}) << "all_finished() with the rung's only chunk in hand";
    h.d.done(svt, *again, 1.0);
    EXPECT_TRUE(h.d.all_finished());
}

TEST(ChunkDispatcher, RungNobodyCanServeFailsTheRunInsteadOfHanging) {
    ChunkDispatcher d(plans({100, 100}), 10, DispatchMode::helpers, 3, 2);
    d.queue(0).push(chunk(0, 0));
    d.queue(0).push(chunk(0, 1));
    const int svt = d.add_worker("svt", -1);
    const int aom = d.add_worker("aom", -1);
    auto first = d.next(svt, {});
    ASSERT_TRUE(first);
    d.done(svt, *first, 1.0);  // the rung's contract is SVT-AV1 now
    auto second = d.next(aom, {});
    ASSERT_TRUE(second);
    d.refused(aom, std::move(*second));
    // The SVT slot is quarantined: only aom is left, and rung r0 refuses it.
    try {
        d.retire(svt);
        FAIL() << "retiring the last SVT slot orphans rung r0";
    } catch (const RunError& e) {
        EXPECT_NE(std::string(e.what()).find("rung r0: no encoder slot left"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("aom"), std::string::npos) << e.what();
    }
    std::jthread waiter([&] { EXPECT_THROW(d.next(aom, {}), RunError); });
}

TEST(ChunkDispatcher, FixedWorkersOnlyTakeTheirRung) {
    ChunkDispatcher d(plans({100, 100}), 10, DispatchMode::fixed, 3, 2);
    d.queue(1).push(chunk(1, 0));
    d.queue(0).close();
    const int w0 = d.add_worker("svt", 0);
    const int w1 = d.add_worker("svt", 1);
    EXPECT_FALSE(d.next(w0, {}).has_value()) << "its rung is finished; it may not help rung 1";
    auto c = d.next(w1, {});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->rung, 1);
}

TEST(ChunkDispatcher, NextBlocksUntilAChunkArrivesAndEndsWhenAllAreDone) {
    ChunkDispatcher d(plans({100}), 10, DispatchMode::helpers, 3, 1);
    const int w = d.add_worker("svt", -1);
    std::optional<RawChunk> got;
    std::jthread t([&] { got = d.next(w, {}); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(got.has_value());
    d.queue(0).push(chunk(0, 0));
    t.join();
    ASSERT_TRUE(got);
    d.queue(0).close();
    std::optional<RawChunk> none = chunk(0, 9);
    std::jthread t2([&] { none = d.next(w, {}); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    d.done(w, *got, 1.0);  // the in-flight chunk is done: nothing can come back
    t2.join();
    EXPECT_FALSE(none.has_value());
}

TEST(ChunkDispatcher, AProducerWaitsWhileItsRungIsFullUntilAWorkerTakesAChunk) {
    ChunkDispatcher d(plans({100}), 1, DispatchMode::helpers, 3, 1);
    const int w = d.add_worker("svt", -1);
    ASSERT_TRUE(d.queue(0).push(chunk(0, 0)));
    test::BlockProbe probe;
    std::atomic<bool> pushed{false};
    std::jthread producer([&] {
        probe.arm();
        pushed = d.queue(0).push(chunk(0, 1));
    });
    ASSERT_EQ(test::wait_until_blocked(probe), test::ProbeResult::blocked);
    EXPECT_FALSE(pushed.load()) << "the rung holds its capacity (1 chunk)";
    auto first = d.next(w, {});
    ASSERT_TRUE(first);
    producer.join();
    EXPECT_TRUE(pushed.load());
    EXPECT_EQ(d.queued_chunks(), 1u);
}

TEST(ChunkDispatcher, AStoppedProducerDoesNotPush) {
    ChunkDispatcher d(plans({100}), 1, DispatchMode::helpers, 3, 1);
    ASSERT_TRUE(d.queue(0).push(chunk(0, 0)));
    std::stop_source stop;
    stop.request_stop();
    EXPECT_FALSE(d.queue(0).push(chunk(0, 1), stop.get_token()));
    EXPECT_EQ(d.queued_chunks(), 1u);
}

TEST(ChunkDispatcher, AProducerWaitingForMemoryEndsASessionWaitingForItsNextChunk) {
    // The session's encoder may hold the frames the decode waits for: the
    // producer says it waits (the memory budget calls nobody), and the
    // session waiting for its next chunk ends instead of waiting its hour.
    ChunkDispatcher d(plans({100}), 10, DispatchMode::helpers, 3, 1, 100, 1, 0, std::chrono::hours(1));
    d.queue(0).push(chunk(0, 0));
    const int w = d.add_worker("svt", -1);
    ASSERT_TRUE(d.next(w, {}));
    ASSERT_GT(d.session_chunks(w), 1);
    test::BlockProbe probe;
    std::optional<RawChunk> next = chunk(0, 9);
    std::jthread session([&] {
        probe.arm();
        next = d.continue_session(w);
    });
    ASSERT_EQ(test::wait_until_blocked(probe), test::ProbeResult::blocked);
    d.queue(0).waiting_for_memory(true);
    session.join();
    EXPECT_FALSE(next.has_value());
    d.queue(0).waiting_for_memory(false);
}

TEST(ChunkDispatcher, StopWakesAWaitingWorker) {
    ChunkDispatcher d(plans({100}), 10, DispatchMode::helpers, 3, 1);
    const int w = d.add_worker("svt", -1);
    std::stop_source stop;
    std::optional<RawChunk> got = chunk(0, 0);
    std::jthread t([&] { got = d.next(w, stop.get_token()); });
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    stop.request_stop();
    t.join();
    EXPECT_FALSE(got.has_value());
}

}  // namespace
}  // namespace ladder::engine
