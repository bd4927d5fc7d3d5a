// The scheduling policy without the board: a ScheduleState built by hand,
// the time in it, the decision read back. No thread, no lock, no clock.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/schedule/schedule_policy.hpp"
#include "gpu/encoder_traits.hpp"

namespace ladder::engine {
namespace {

// Rungs of `frames` expected frames in chunks of 4, the pixels given.
ScheduleState state(std::initializer_list<std::int64_t> pixels, std::int64_t frames = 40, int max_session = 1) {
    ScheduleState s;
    s.limits.max_tries = 3;
    s.limits.max_session_chunks = max_session;
    s.limits.max_hw_session_chunks = max_session;
    int i = 0;
    for (auto px : pixels) {
        RungSchedule r;
        r.plan = {"r" + std::to_string(i++), px, frames, 4};
        s.rungs.push_back(r);
    }
    return s;
}

void queue(ScheduleState& s, int rung, int from, int to, int gpu = -1) {
    for (int k = from; k < to; ++k) s.rungs[static_cast<std::size_t>(rung)].queued.push_back({k, gpu, 4});
}

void close_all(ScheduleState& s) {
    for (auto& r : s.rungs) r.closed = true;
}

int add(ScheduleState& s, const std::string& encoder = "svt", int gpu = -1) {
    SlotState w;
    w.encoder = encoder;
    // As ChunkDispatcher::add_worker sets it: from the encoder's record.
    const gpu::EncoderTraits* traits = gpu::find_encoder_traits(encoder);
    w.controls_session_rate = traits && traits->controls_session_rate;
    w.gpu = gpu;
    s.workers.push_back(w);
    s.limits.expected_workers = s.workers.size();
    return static_cast<int>(s.workers.size()) - 1;
}

// The worker encodes chunk 0 of the rung in a session that reserved the
// chunks up to `end`.
void encoding_run(ScheduleState& s, int worker, int rung, int end) {
    SlotState& w = s.workers[static_cast<std::size_t>(worker)];
    w.rung = w.session_rung = rung;
    w.session_first = 0;
    w.session_next = 1;
    w.session_end = end;
    s.rungs[static_cast<std::size_t>(rung)].in_flight = 1;
}

// What the board does with a start or a steal, without the frames: the
// chunk leaves its queue, counts in flight, and the worker's session opens.
void apply(ScheduleState& s, int worker, const Pick& p) {
    ASSERT_TRUE(p.kind == Pick::Kind::start || p.kind == Pick::Kind::steal);
    auto& r = s.rungs[static_cast<std::size_t>(p.rung)];
    std::erase_if(r.queued, [&](const QueuedChunk& c) { return c.index == p.index; });
    if (p.kind == Pick::Kind::steal) s.workers[static_cast<std::size_t>(p.victim)].session_end = p.index;
    SlotState& w = s.workers[static_cast<std::size_t>(worker)];
    w.rung = p.rung;
    w.session_rung = p.rung;
    w.session_first = p.index;
    w.session_next = p.index + 1;
    w.session_end = p.session_end;
    w.started = s.now;
    w.chunk_work = 4.0 * static_cast<double>(r.plan.pixels);
    r.claimed_frames += 4;
    ++r.in_flight;
}

TEST(SchedulePolicy, AWorkerStaysOnItsRungWhileItHasAChunkReady) {
    auto s = state({100, 100});
    queue(s, 0, 0, 2);
    queue(s, 1, 0, 1);
    const int w = add(s);
    s.workers[0].rung = 0;
    s.workers[0].speed = 400;
    const Pick p = pick_next(s, w);
    EXPECT_EQ(p.kind, Pick::Kind::start);
    EXPECT_EQ(p.rung, 0) << "affinity: the rung still has a chunk ready";
    s.rungs[0].queued.clear();
    EXPECT_EQ(pick_next(s, w).rung, 1) << "it leaves once its rung has nothing ready";
}

TEST(SchedulePolicy, AFreeWorkerJoinsTheRungWithTheMostRemainingTime) {
    auto s = state({1000, 10}, 100);
    queue(s, 0, 0, 5);
    queue(s, 1, 0, 5);
    add(s);
    add(s);
    const int w2 = add(s);
    s.workers[0].rung = 0;
    s.workers[1].rung = 1;
    EXPECT_EQ(pick_next(s, w2).rung, 0) << "1000 px x 100 frames is the longest remaining time";
    s.workers[1].rung = 0;
    EXPECT_EQ(pick_next(s, w2).rung, 1) << "a rung nobody works on goes first";
}

// One rung of 4 chunks (4 frames x 1000 px = 4000 pixel-frames each) and two
// workers of different encoders: F takes 3 s a chunk, S 4 s. F took chunk 2
// at t = 3 (busy until t = 6); S frees up with chunk 3, the last, unclaimed.
ScheduleState tail(double now, const std::string& slow_encoder = "libaom-av1") {
    auto s = state({1000}, 16);
    queue(s, 0, 3, 4);
    const int fast = add(s, "libsvtav1");
    const int slow = add(s, slow_encoder);
    s.rungs[0].claimed_frames = 12;
    s.rungs[0].in_flight = 1;
    SlotState& f = s.workers[static_cast<std::size_t>(fast)];
    f.rung = 0;
    f.speed = 4000.0 / 3.0;
    f.started = 3;
    f.chunk_work = 4000;
    SlotState& sl = s.workers[static_cast<std::size_t>(slow)];
    sl.rung = 0;
    sl.speed = 1000;
    s.now = now;
    return s;
}

TEST(SchedulePolicy, AFreeSlotTakesTheLastChunkWhileTheOtherIsStillBusy) {
    // At t = 4, F needs 2 s more for its chunk plus 3 s for the last one
    // (ends at 9); S can do the last one by t = 8. Counting only the
    // unclaimed chunk (3 s at F's speed < 4 s) would leave S idle.
    const auto s = tail(4.0);
    const Pick p = pick_next(s, 1);
    EXPECT_EQ(p.kind, Pick::Kind::start) << "the free slot must take the last chunk";
    EXPECT_EQ(p.index, 3);
    EXPECT_FALSE(would_delay(s, 1, 0));
}

TEST(SchedulePolicy, ASlowSlotLeavesTheLastChunkToAFasterOneAboutToFinish) {
    // At t = 5.9, F is 0.1 s from done and then needs 3 s (ends at 9.0);
    // S would end at 9.9: taking it only makes the rung end later.
    const auto s = tail(5.9);
    EXPECT_TRUE(would_delay(s, 1, 0));
    EXPECT_EQ(pick_next(s, 1).kind, Pick::Kind::wait) << "the rung still has work; the slot waits, it is not done";
}

TEST(SchedulePolicy, AFreeSlotOfTheSameEncoderTakesTheLastChunkWhateverItsMeasuredSpeed) {
    // The same encoder: the speeds differ by what each slot's chunks held
    // (an easy chunk measures fast), not by the slot. Waiting at t = 5.9
    // would leave S idle while the rung's last chunk waits for F.
    const auto s = tail(5.9, "libsvtav1");
    EXPECT_FALSE(would_delay(s, 1, 0));
    EXPECT_EQ(pick_next(s, 1).kind, Pick::Kind::start);
}

TEST(SchedulePolicy, ASlowSlotTakesAChunkWhenMoreAreLeftThanFasterSlotsAboutToFinish) {
    // Two chunks left and one faster slot about to be free: it can take
    // only one of them, so S starts the other now.
    auto s = tail(5.9);
    s.rungs[0].queued.clear();
    queue(s, 0, 2, 4);
    s.rungs[0].claimed_frames = 8;
    EXPECT_FALSE(would_delay(s, 1, 0));
}

TEST(SchedulePolicy, OnceEverythingIsQueuedTheBiggestChunksGoFirst) {
    auto s = state({10, 1000}, 100);
    queue(s, 0, 0, 3);
    queue(s, 1, 0, 1);
    const int w = add(s);
    s.workers[0].rung = 0;
    s.workers[0].speed = 1000;
    EXPECT_EQ(pick_next(s, w).rung, 0) << "affinity while more may arrive";
    close_all(s);
    EXPECT_EQ(pick_next(s, w).rung, 1) << "everything queued: the 1000 px chunk before the 10 px ones";
    EXPECT_EQ(pick_rung(s, w), 1);
}

TEST(SchedulePolicy, ARefusedKindNeverReturnsToTheRung) {
    auto s = state({100});
    queue(s, 0, 0, 2);
    close_all(s);
    const int aom = add(s, "aom");
    add(s, "svt");
    s.rungs[0].refused_kinds.insert("aom");
    EXPECT_FALSE(can_serve(s, s.workers[0], 0));
    EXPECT_EQ(pick_next(s, aom).kind, Pick::Kind::done) << "nothing else it may do: it leaves";
    EXPECT_EQ(pick_next(s, 1).kind, Pick::Kind::start);
}

TEST(SchedulePolicy, AFailedChunkGoesToAnotherSlotAndAlone) {
    auto s = state({100}, 40, 100);
    queue(s, 0, 0, 10);
    const int a = add(s);
    const int b = add(s);
    s.failed_on[{0, 0}] = {a};
    EXPECT_EQ(pick_next(s, a).kind, Pick::Kind::wait) << "slot b can take it: a does not get it back";
    const Pick p = pick_next(s, b);
    ASSERT_EQ(p.kind, Pick::Kind::start);
    EXPECT_EQ(p.index, 0);
    EXPECT_EQ(p.session_end, 1) << "a chunk that failed before is a session of its own";
    s.workers[static_cast<std::size_t>(b)].retired = true;
    EXPECT_EQ(pick_next(s, a).index, 0) << "with no other slot, it comes back to a";
}

// A thread that gave its slot back must not wait while a chunk waits for
// another slot that nobody holds: the chunk a failed on is left to b only
// while b is idle; once b works or is gone, a takes it itself.
TEST(SchedulePolicy, AChunkLeftToAnIdleSlotIsSeenByTheOthers) {
    auto s = state({100}, 40, 100);
    queue(s, 0, 0, 10);
    const int a = add(s);
    const int b = add(s);
    s.failed_on[{0, 0}] = {a};
    EXPECT_EQ(pick_next(s, a).kind, Pick::Kind::wait);
    EXPECT_TRUE(ready_for_an_idle_other(s, a)) << "b is idle and would start chunk 0";
    EXPECT_FALSE(ready_for_an_idle_other(s, b)) << "a would wait: nothing ready for it";
    s.workers[static_cast<std::size_t>(b)].rung = 0;
    s.workers[static_cast<std::size_t>(b)].chunk_work = 1;
    EXPECT_FALSE(ready_for_an_idle_other(s, a)) << "b is working: its thread comes back for chunk 0 itself";
    s.workers[static_cast<std::size_t>(b)].rung = -1;
    s.workers[static_cast<std::size_t>(b)].chunk_work = 0;
    s.workers[static_cast<std::size_t>(b)].retired = true;
    EXPECT_FALSE(ready_for_an_idle_other(s, a)) << "b is gone";
    EXPECT_EQ(pick_next(s, a).kind, Pick::Kind::start);
}

TEST(SchedulePolicy, FixedWorkersOnlyTakeTheirRung) {
    auto s = state({100, 100});
    s.limits.mode = DispatchMode::fixed;
    queue(s, 1, 0, 1);
    s.rungs[0].closed = true;
    const int w0 = add(s);
    const int w1 = add(s);
    s.workers[0].pinned = 0;
    s.workers[1].pinned = 1;
    EXPECT_EQ(pick_next(s, w0).kind, Pick::Kind::done) << "its rung is finished; it may not help rung 1";
    EXPECT_EQ(pick_next(s, w1).rung, 1);
}

TEST(SchedulePolicy, ASessionIsItsWorkersFairShareWithinTheCaps) {
    auto s = state({100}, 48, 100);  // 12 chunks
    queue(s, 0, 0, 12);
    close_all(s);
    const int w0 = add(s);
    const int w1 = add(s);
    const Pick first = pick_next(s, w0);
    EXPECT_EQ(first.session_end, 6) << "its fair share of 12 chunks between 2 workers";
    apply(s, w0, first);
    const Pick second = pick_next(s, w1);
    EXPECT_EQ(second.index, 6) << "another worker starts past the reserved run";
    // Left: 11 chunks (w0's first is claimed; w1's is counted): 5.5 each,
    // 6 chunks.
    EXPECT_EQ(second.session_end - second.index, 6);

    s.limits.min_sessions_per_rung = 5;
    EXPECT_EQ(session_length(s, s.workers[1], 0, 4), 3) << "at most a fifth of the rung: ceil(12 / 5)";
    s.workers[1].encoder = "av1_nvenc";
    s.workers[1].controls_session_rate = gpu::encoder_traits("av1_nvenc").controls_session_rate;
    s.limits.max_hw_session_chunks = 8;
    EXPECT_EQ(session_length(s, s.workers[1], 0, 4), 6) << "a GPU encoder's session is not cut for rate feedback";
    s.limits.max_session_chunks = 1;
    EXPECT_EQ(session_length(s, s.workers[1], 0, 4), 1);
}

TEST(SchedulePolicy, AtTheEndAnIdleWorkerStealsTheBackHalfOfTheLongestRun) {
    auto s = state({100}, 48, 100);
    queue(s, 0, 1, 6);      // chunks 1-5: the rest of w0's run
    close_all(s);
    const int w0 = add(s);
    const int w1 = add(s);
    encoding_run(s, w0, 0, 6);
    const Pick p = pick_next(s, w1);
    ASSERT_EQ(p.kind, Pick::Kind::steal);
    EXPECT_EQ(p.victim, w0);
    EXPECT_EQ(p.index, 4) << "5 chunks left in the run: the back half is 4 and 5";
    EXPECT_EQ(p.session_end, 6);
    s.rungs[0].closed = false;
    EXPECT_EQ(pick_next(s, w1).kind, Pick::Kind::wait) << "no steal while more may arrive";
}

TEST(SchedulePolicy, AtTheEndAGpuWorkerStealsARunOfBiggerChunksBeforeStartingSmallerOnes) {
    for (const std::string encoder : {"ladder-nvenc", "svt"}) {
        auto s = state({1000, 100}, 48, 100);
        queue(s, 0, 1, 6);   // chunks 1-5: the rest of w0's run
        queue(s, 1, 0, 12);  // the small rung, nobody's
        const int w0 = add(s, encoder);
        const int w1 = add(s, encoder);
        encoding_run(s, w0, 0, 6);
        EXPECT_EQ(pick_next(s, w1).kind, Pick::Kind::start) << encoder << ": more may arrive";
        close_all(s);
        const Pick p = pick_next(s, w1);
        if (encoder == "svt") {
            EXPECT_EQ(p.kind, Pick::Kind::start) << "a CPU worker starts on the small rung";
            EXPECT_EQ(p.rung, 1);
            continue;
        }
        ASSERT_EQ(p.kind, Pick::Kind::steal) << "the 1000 px chunks before the 100 px ones";
        EXPECT_EQ(p.victim, w0);
        EXPECT_EQ(p.index, 4);
        // A run of chunks no bigger than the ones it would start is left alone.
        s.rungs[1].plan.pixels = 1000;
        EXPECT_EQ(pick_next(s, w1).kind, Pick::Kind::start);
    }
}

TEST(SchedulePolicy, ASessionGoesOnWaitsOrEnds) {
    auto s = state({100, 100}, 40, 100);
    queue(s, 0, 0, 1);
    const int w = add(s);
    apply(s, w, pick_next(s, w));
    ASSERT_EQ(s.workers[0].session_rung, 0);
    ASSERT_GT(s.workers[0].session_end, 1);
    EXPECT_EQ(session_step(s, w).kind, SessionStep::Kind::wait) << "chunk 1 is still being decoded";
    queue(s, 0, 1, 2);
    const SessionStep go = session_step(s, w);
    EXPECT_EQ(go.kind, SessionStep::Kind::take);
    EXPECT_EQ(go.index, 1);
    s.rungs[0].queued.clear();
    s.producers_waiting = 1;
    EXPECT_EQ(session_step(s, w).kind, SessionStep::Kind::end) << "the decode waits for memory the session may hold";
    EXPECT_EQ(session_step(s, w).ended, SessionEnd::decode_behind);
    s.producers_waiting = 0;
    queue(s, 1, 0, 1);
    EXPECT_EQ(session_step(s, w).kind, SessionStep::Kind::end) << "another rung has a chunk ready";
    EXPECT_EQ(session_step(s, w).ended, SessionEnd::decode_behind);
    s.rungs[1].queued.clear();
    s.rungs[0].closed = true;
    EXPECT_EQ(session_step(s, w).kind, SessionStep::Kind::end) << "nothing more is coming";
    EXPECT_EQ(session_step(s, w).ended, SessionEnd::source_done);
    s.rungs[0].closed = false;
    s.failed_on[{0, 1}] = {0};
    EXPECT_EQ(session_step(s, w).kind, SessionStep::Kind::end) << "a chunk that failed before goes alone";
    EXPECT_EQ(session_step(s, w).ended, SessionEnd::cannot_serve);
    s.failed_on.clear();
    s.workers[0].session_next = s.workers[0].session_end;
    EXPECT_EQ(session_step(s, w).ended, SessionEnd::run_done);
    EXPECT_STREQ(session_end_name(SessionEnd::decode_behind), "decode_behind");
}

TEST(SchedulePolicy, GpuChunksGoOnlyToSessionsOnTheirGpu) {
    auto s = state({100}, 32, 8);
    queue(s, 0, 0, 4, 0);
    queue(s, 0, 4, 8, 1);
    close_all(s);
    s.frame_gpus = {0, 1};
    const int on1 = add(s, "av1_nvenc", 1);
    const int on0 = add(s, "av1_nvenc", 0);
    const Pick p1 = pick_next(s, on1);
    EXPECT_EQ(p1.index, 4);
    const Pick p0 = pick_next(s, on0);
    EXPECT_EQ(p0.index, 0);
    apply(s, on1, p1);
    s.workers[static_cast<std::size_t>(on1)].session_end = 8;
    s.rungs[0].queued.erase(s.rungs[0].queued.begin() + 4, s.rungs[0].queued.end());  // 5-7 taken in its session
    s.workers[static_cast<std::size_t>(on1)].session_next = 8;
    EXPECT_EQ(session_step(s, on1).kind, SessionStep::Kind::end);
    EXPECT_EQ(session_step(s, on1).ended, SessionEnd::run_done);
    s.workers[static_cast<std::size_t>(on1)].session_next = 7;
    queue(s, 0, 7, 8, 0);
    EXPECT_EQ(session_step(s, on1).ended, SessionEnd::other_gpu) << "chunk 7 is in GPU 0's memory";
    s.workers[static_cast<std::size_t>(on1)].session_rung = -1;
    EXPECT_EQ(pick_next(s, on1).kind, Pick::Kind::wait) << "GPU 0's chunks are not GPU 1's: it waits for its own";
}

// Before any chunk is decoded each GPU slot opens the encoder of the rung it
// will take: every rung once, the biggest first; then the one with the most
// time left. With chunks kept on their GPUs, the spread is per GPU. A CPU
// encoder opens nothing ahead.
TEST(SchedulePolicy, GpuSlotsOpenAheadForTheRungsTheyWillTake) {
    auto s = state({400, 100, 900});
    const int a = add(s, "av1_nvenc", 0), b = add(s, "av1_nvenc", 0), c = add(s, "av1_nvenc", 1),
              d = add(s, "av1_nvenc", 1);
    const int cpu = add(s, "svt");
    std::vector<int> opened;
    for (int w : {a, b, c, d}) {
        opened.push_back(opening_rung(s, w));
        s.workers[static_cast<std::size_t>(w)].opened_ahead = opened.back();
    }
    EXPECT_EQ(opened, (std::vector<int>{2, 0, 1, 2})) << "each rung once, biggest first; then the most work left";
    EXPECT_EQ(opening_rung(s, cpu), -1);
    // Rung 1's first chunk is cut a moment before the others: the worker
    // whose encoder is open on rung 0 waits for its own (unless a producer
    // waits for memory).
    queue(s, 1, 0, 1);
    EXPECT_EQ(pick_next(s, b).kind, Pick::Kind::wait);
    s.producers_waiting = 1;
    EXPECT_EQ(pick_next(s, b).rung, 1);
    s.producers_waiting = 0;
    // Nor once another worker took its rung's first chunk: that session may
    // reserve the chunks that come next.
    s.rungs[0].claimed_frames = 4;
    EXPECT_EQ(pick_next(s, b).rung, 1);
    s.rungs[0].claimed_frames = 0;
    // The first chunks come: each takes the rung it opened for, not the biggest.
    queue(s, 0, 0, 1);
    queue(s, 2, 0, 1);
    const Pick pb = pick_next(s, b);
    EXPECT_EQ(pb.rung, 0);
    EXPECT_EQ(rung_of(s.workers[static_cast<std::size_t>(b)]), 0);

    auto kept = state({400, 100, 900});
    kept.frame_gpus = {0, 1};
    const int g0a = add(kept, "av1_nvenc", 0), g0b = add(kept, "av1_nvenc", 0), g1a = add(kept, "av1_nvenc", 1);
    std::vector<int> per_gpu;
    for (int w : {g0a, g0b, g1a}) {
        per_gpu.push_back(opening_rung(kept, w));
        kept.workers[static_cast<std::size_t>(w)].opened_ahead = per_gpu.back();
    }
    EXPECT_EQ(per_gpu, (std::vector<int>{2, 0, 2})) << "GPU 1's first slot is alone on its GPU";
}

TEST(SchedulePolicy, ARungNobodyLeftCanServeIsTheRunsFailure) {
    auto s = state({100, 100});
    queue(s, 0, 0, 1);
    add(s, "svt");
    add(s, "aom");
    s.limits.expected_workers = 3;
    s.rungs[0].refused_kinds.insert("aom");
    s.workers[0].retired = true;
    EXPECT_EQ(orphan_failure(s), std::nullopt) << "not before every expected worker registered";
    s.limits.expected_workers = 2;
    const auto failure = orphan_failure(s);
    ASSERT_TRUE(failure);
    EXPECT_NE(failure->find("rung r0: no encoder slot left can encode it (its contract refused aom"), std::string::npos)
        << *failure;
    s.workers[0].retired = false;
    EXPECT_EQ(orphan_failure(s), std::nullopt);
}

TEST(SchedulePolicy, ChunksOnAGpuWithNoSessionLeftFailTheRunNamingIt) {
    auto s = state({100});
    queue(s, 0, 0, 1, 1);
    s.frame_gpus = {0, 1};
    add(s, "av1_nvenc", 0);
    add(s, "av1_nvenc", 1);
    s.workers[1].retired = true;
    const auto failure = orphan_failure(s);
    ASSERT_TRUE(failure);
    EXPECT_NE(failure->find("no encoder slot left on GPU 1"), std::string::npos) << *failure;
}

TEST(SchedulePolicy, FinishedBacklogAndQueuedAreReadFromTheState) {
    auto s = state({100, 100}, 40, 100);
    queue(s, 0, 0, 3);
    EXPECT_FALSE(all_queued(s));
    EXPECT_EQ(final_backlog(s), -1) << "more may come";
    close_all(s);
    EXPECT_EQ(final_backlog(s), 3);
    SlotState& w = s.workers.emplace_back();
    w.session_rung = 0;
    w.session_next = 1;
    w.session_end = 3;
    EXPECT_EQ(final_backlog(s), 1) << "two chunks are a session's reserved run";
    EXPECT_FALSE(rung_finished(s, 0));
    EXPECT_TRUE(rung_finished(s, 1));
    s.rungs[0].queued.clear();
    s.rungs[0].in_flight = 1;
    EXPECT_FALSE(all_finished(s)) << "a chunk in flight may come back";
    s.rungs[0].in_flight = 0;
    EXPECT_TRUE(all_finished(s));
}

}  // namespace
}  // namespace ladder::engine
