// ChunkDispatcher sessions: a worker goes on with the next chunks of its
// rung in one encoder session, others start past its run, and the runs
// shrink as the work runs out.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>
#include <string>
#include <vector>

#include "engine/schedule/chunk_dispatcher.hpp"

namespace ladder::engine {
namespace {

constexpr int kSessionFrames = 4;  // per chunk

RawChunk session_chunk(int rung, int index) {
    RawChunk c;
    c.rung = rung;
    c.index = index;
    c.first_frame = static_cast<std::int64_t>(index) * kSessionFrames;
    for (int i = 0; i < kSessionFrames; ++i) c.frames.push_back(av::make_frame());
    return c;
}

// One rung of `chunks` chunks.
ChunkDispatcher one_rung(int chunks, int workers, int max_session,
                         std::chrono::steady_clock::duration session_wait = std::chrono::seconds(1)) {
    return ChunkDispatcher({RungPlan{"r0", 100, static_cast<std::int64_t>(chunks) * kSessionFrames, kSessionFrames}}, 1000,
                           DispatchMode::helpers, 3, workers, max_session, 1, 0, session_wait);
}

void queue_chunks(ChunkDispatcher& d, int from, int to) {
    for (int k = from; k < to; ++k) d.queue(0).push(session_chunk(0, k));
}

// Takes the worker's session to its end; the chunk indices it encoded.
std::vector<int> run_session(ChunkDispatcher& d, int w) {
    std::vector<int> got;
    auto c = d.next(w, {});
    while (c) {
        got.push_back(c->index);
        d.done(w, *c, 1.0);
        c = d.continue_session(w);
    }
    return got;
}

// The worker's session goes on with chunks [from, to), then ends.
void expect_session_goes_on(ChunkDispatcher& d, int w, int from, int to) {
    for (int k = from; k < to; ++k) {
        auto c = d.continue_session(w);
        ASSERT_TRUE(c) << "chunk " << k;
        EXPECT_EQ(c->index, k);
    }
    EXPECT_FALSE(d.continue_session(w)) << "the run ends before chunk " << to;
}

TEST(DispatcherSessions, ALoneWorkerGoesOnWithTheNextChunksOfItsRung) {
    auto d = one_rung(10, 1, 5);
    queue_chunks(d, 0, 10);
    d.queue(0).close();
    const int w = d.add_worker("svt", -1);
    EXPECT_EQ(run_session(d, w), (std::vector<int>{0, 1, 2, 3, 4})) << "5 chunks: the session limit";
    EXPECT_EQ(run_session(d, w), (std::vector<int>{5, 6, 7, 8, 9}));
}

// The rate request of a session is made for its planned length.
TEST(DispatcherSessions, ASessionKnowsItsPlannedLength) {
    auto d = one_rung(12, 2, 100);
    queue_chunks(d, 0, 12);
    d.queue(0).close();
    const int w0 = d.add_worker("svt", -1);
    const int w1 = d.add_worker("svt", -1);
    EXPECT_EQ(d.session_chunks(w0), 1) << "no session yet";
    ASSERT_TRUE(d.next(w0, {}));
    EXPECT_EQ(d.session_chunks(w0), 6) << "its fair share of 12 chunks between 2 workers";
    ASSERT_TRUE(d.continue_session(w0));
    EXPECT_EQ(d.session_chunks(w0), 6) << "the chunks it took count";
    ASSERT_TRUE(d.next(w1, {}));
    // Left: w0's 4 reserved chunks and the 6 nobody reserved (w1's first
    // among them): 5 each, so both end together.
    EXPECT_EQ(d.session_chunks(w1), 5) << "a fair share of all that is left, w0's reserved run included";
    auto c = d.continue_session(w0);
    while (c) c = d.continue_session(w0);
    EXPECT_EQ(d.session_chunks(w0), 1) << "the session ended";
}

TEST(DispatcherSessions, ARungIsCutIntoAtLeastTheSessionsAsked) {
    // 12 chunks, one worker, sessions of up to 100 chunks, at least 5 per
    // rung: runs of ceil(12 / 5) = 3.
    ChunkDispatcher d({RungPlan{"r0", 100, 12 * kSessionFrames, kSessionFrames}}, 1000, DispatchMode::helpers, 3, 1,
                      100, 5);
    queue_chunks(d, 0, 12);
    d.queue(0).close();
    const int w = d.add_worker("svt", -1);
    for (int first = 0; first < 12; first += 3)
        EXPECT_EQ(run_session(d, w), (std::vector<int>{first, first + 1, first + 2}));
}

TEST(DispatcherSessions, AHardwareEncoderTakesAWholeRungInOneSession) {
    // The same rung and limits as above, at least 5 sessions per rung for
    // the software encoders' rate feedback: NVENC keeps its own rate
    // control over a session, so one session takes all 12 chunks (up to the
    // hardware cap), and a software worker on the same rung still gets 3.
    ChunkDispatcher d({RungPlan{"r0", 100, 12 * kSessionFrames, kSessionFrames}}, 1000, DispatchMode::helpers, 3, 1,
                      100, 5, 120);
    queue_chunks(d, 0, 12);
    d.queue(0).close();
    const int gpu = d.add_worker("av1_nvenc", -1);
    EXPECT_EQ(run_session(d, gpu), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(DispatcherSessions, AHardwareSessionStopsAtItsOwnCap) {
    ChunkDispatcher d({RungPlan{"r0", 100, 12 * kSessionFrames, kSessionFrames}}, 1000, DispatchMode::helpers, 3, 1,
                      100, 5, 8);
    queue_chunks(d, 0, 12);
    d.queue(0).close();
    const int gpu = d.add_worker("av1_nvenc", -1);
    EXPECT_EQ(run_session(d, gpu).size(), 8u);
    EXPECT_EQ(run_session(d, gpu).size(), 4u);
}

TEST(DispatcherSessions, AnotherWorkerStartsPastTheReservedRun) {
    auto d = one_rung(12, 2, 100);
    queue_chunks(d, 0, 12);
    const int w0 = d.add_worker("svt", -1);
    const int w1 = d.add_worker("svt", -1);
    auto a = d.next(w0, {});
    ASSERT_TRUE(a);
    EXPECT_EQ(a->index, 0);
    auto b = d.next(w1, {});
    ASSERT_TRUE(b);
    // w0's fair share of 12 chunks between 2 workers: chunks 0-5.
    EXPECT_EQ(b->index, 6) << "w1 starts past w0's run, not at chunk 1";
    expect_session_goes_on(d, w0, 1, 6);  // chunk 6 belongs to w1's session
}

TEST(DispatcherSessions, ASessionWhoseNextChunkDoesNotComeInTimeEndsAndItsRunIsFreed) {
    auto d = one_rung(10, 2, 100, std::chrono::seconds(0));
    queue_chunks(d, 0, 2);
    const int w0 = d.add_worker("svt", -1);
    const int w1 = d.add_worker("svt", -1);
    auto a = d.next(w0, {});
    ASSERT_TRUE(a);
    auto b = d.continue_session(w0);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->index, 1);
    EXPECT_FALSE(d.continue_session(w0)) << "chunk 2 is not decoded within the wait (none here): the session ends";
    queue_chunks(d, 2, 3);
    bool finished = false;
    std::uint64_t observed = 0;
    auto c = d.try_next(w1, finished, observed);
    ASSERT_TRUE(c) << "what w0 had reserved is free again";
    EXPECT_EQ(c->index, 2);
}

TEST(DispatcherSessions, ASessionGoesOnWithTheChunkTheDecoderQueuesWhileItWaits) {
    auto d = one_rung(10, 1, 100, std::chrono::hours(1));  // only the chunk (or a failure) ends the wait
    queue_chunks(d, 0, 1);
    const int w = d.add_worker("svt", -1);
    auto a = d.next(w, {});
    ASSERT_TRUE(a);
    // Whether the decoder queues chunk 1 before or during the wait, the
    // session goes on with it.
    std::jthread decoder([&d] { queue_chunks(d, 1, 2); });
    auto b = d.continue_session(w);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->index, 1);
}

TEST(DispatcherSessions, ASessionDoesNotWaitWhileAnotherRungHasAChunkReady) {
    // Two rungs; the worker's session on rung 0 has no next chunk yet, and
    // rung 1 has one ready: the worker ends its session and helps there.
    ChunkDispatcher d({RungPlan{"r0", 100, 10 * kSessionFrames, kSessionFrames},
                       RungPlan{"r1", 100, 10 * kSessionFrames, kSessionFrames}},
                      1000, DispatchMode::helpers, 3, 1, 100, 1, 0, std::chrono::hours(1));
    d.queue(0).push(session_chunk(0, 0));
    d.queue(1).push(session_chunk(1, 0));
    const int w = d.add_worker("svt", -1);
    auto a = d.next(w, {});
    ASSERT_TRUE(a);
    EXPECT_FALSE(d.continue_session(w)) << "rung " << 1 - a->rung << " has chunk 0 ready";
}

TEST(DispatcherSessions, ASessionDoesNotWaitOnceTheRungIsFullyQueued) {
    auto d = one_rung(10, 1, 100, std::chrono::hours(1));
    queue_chunks(d, 0, 2);
    d.queue(0).close();  // the source ended after 2 chunks, not the 10 estimated
    const int w = d.add_worker("svt", -1);
    EXPECT_EQ(run_session(d, w), (std::vector<int>{0, 1}));
}

TEST(DispatcherSessions, RunsShrinkTowardTheEndOfTheWork) {
    auto d = one_rung(40, 2, 100);
    queue_chunks(d, 0, 40);
    d.queue(0).close();
    const int w0 = d.add_worker("svt", -1);
    const int w1 = d.add_worker("svt", -1);
    std::vector<std::size_t> lengths;
    for (int turn = 0; !d.all_finished() && turn < 100; ++turn) {
        const auto got = run_session(d, turn % 2 ? w1 : w0);
        if (!got.empty()) lengths.push_back(got.size());
    }
    ASSERT_GE(lengths.size(), 3u);
    EXPECT_EQ(lengths.front(), 20u) << "the first run is its worker's fair share";
    EXPECT_EQ(lengths.back(), 1u) << "the last chunks go one by one";
    for (std::size_t i = 1; i < lengths.size(); ++i) EXPECT_LE(lengths[i], lengths[i - 1]);
    std::size_t total = 0;
    for (auto n : lengths) total += n;
    EXPECT_EQ(total, 40u);
}

TEST(DispatcherSessions, AFailedChunkEndsTheSessionAndGoesToAnotherWorker) {
    auto d = one_rung(10, 2, 100);
    queue_chunks(d, 0, 10);
    const int w0 = d.add_worker("svt", -1);
    const int w1 = d.add_worker("svt", -1);
    auto a = d.next(w0, {});
    ASSERT_TRUE(a);
    d.failed(w0, std::move(*a), "boom");
    EXPECT_FALSE(d.continue_session(w0)) << "the session is over";
    auto b = d.next(w1, {});
    ASSERT_TRUE(b);
    EXPECT_EQ(b->index, 0) << "the failed chunk goes to another slot first";
}

TEST(DispatcherSessions, AChunkThatFailedBeforeIsEncodedAlone) {
    auto d = one_rung(10, 2, 100);
    queue_chunks(d, 0, 10);
    const int w0 = d.add_worker("svt", -1);
    const int w1 = d.add_worker("svt", -1);
    auto a = d.next(w0, {});
    auto b = d.continue_session(w0);
    ASSERT_TRUE(a && b);
    // The session fails: both its chunks go back.
    d.failed(w0, std::move(*b), "crash");
    d.failed(w0, std::move(*a), "crash");
    auto again = d.next(w1, {});
    ASSERT_TRUE(again);
    EXPECT_EQ(again->index, 0);
    EXPECT_FALSE(d.continue_session(w1)) << "chunk 0 failed before: its session is chunk 0 alone";
    auto next = d.next(w1, {});
    ASSERT_TRUE(next);
    EXPECT_EQ(next->index, 1);
    EXPECT_FALSE(d.continue_session(w1)) << "and chunk 1 alone";
}

TEST(DispatcherSessions, AtTheEndAnIdleWorkerTakesTheBackHalfOfTheLongestRun) {
    auto d = one_rung(12, 2, 100);
    queue_chunks(d, 0, 12);
    d.queue(0).close();
    const int w0 = d.add_worker("svt", -1);
    const int w1 = d.add_worker("svt", -1);
    auto a = d.next(w0, {});  // w0 reserves chunks 0-5: its share of 12
    ASSERT_TRUE(a);
    EXPECT_EQ(a->index, 0);
    // w1 works through everything else, then takes the back half of w0's
    // reserved run: chunks 1-5 are left in it, w1 takes 4 and 5.
    std::vector<std::vector<int>> w1_sessions;
    for (int turn = 0; turn < 10; ++turn) {
        auto got = run_session(d, w1);
        if (got.empty()) break;
        w1_sessions.push_back(got);
        if (got.front() < 6) break;
    }
    ASSERT_FALSE(w1_sessions.empty());
    EXPECT_EQ(w1_sessions.back(), (std::vector<int>{4, 5})) << "the stolen half is one session";
    std::set<int> w1_chunks;
    for (const auto& got : w1_sessions) w1_chunks.insert(got.begin(), got.end());
    EXPECT_EQ(w1_chunks, (std::set<int>{4, 5, 6, 7, 8, 9, 10, 11}));
    expect_session_goes_on(d, w0, 1, 4);  // w0's run now ends at chunk 3
}

TEST(DispatcherSessions, SessionsOfOneChunkWhenTheLimitIsOne) {
    auto d = one_rung(4, 1, 1);
    queue_chunks(d, 0, 4);
    const int w = d.add_worker("svt", -1);
    EXPECT_EQ(run_session(d, w), (std::vector<int>{0}));
    EXPECT_EQ(run_session(d, w), (std::vector<int>{1}));
}

}  // namespace
}  // namespace ladder::engine
