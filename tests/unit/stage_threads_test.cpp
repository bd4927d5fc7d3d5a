// StageThreads: the first real failure stops every stage; a stage's cleanup
// runs after its failure is recorded; a thread that cannot be started is a
// failure like any other, the stages already running are stopped and
// joined, and nothing more starts; leaving the scope stops and joins; each
// stage's thread carries its name (top -H), the distinguishing part kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <pthread.h>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

extern "C" {
#include <libavutil/error.h>
}

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/stage_threads.hpp"

namespace ladder::engine {
namespace {

// Blocks until the stage is stopped, as a pump waiting for room does.
void wait_for_stop(std::stop_token stop) {
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait(lock, stop, [] { return false; });
}

// Starts threads normally, except the one numbered fail_at (0-based).
ThreadStarter failing_at(int fail_at, std::atomic<int>& attempts) {
    return [fail_at, &attempts](std::function<void()> body) {
        if (attempts++ == fail_at)
            throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                    "pthread_create");
        return std::jthread(std::move(body));
    };
}

std::string message_of(std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        return x.what();
    }
}

TEST(StageThreads, AThreadThatCannotStartStopsAndJoinsTheStartedOnes) {
    std::atomic<int> attempts{0};
    std::atomic<int> stopped_bodies{0};
    std::atomic<int> cleanups{0};
    std::exception_ptr failure;
    {
        StageThreads stages({}, failing_at(2, attempts));
        for (int i = 0; i < 4; ++i)
            stages.start(
                "stage " + std::to_string(i),
                [&](std::stop_token stop) {
                    wait_for_stop(stop);
                    ++stopped_bodies;
                },
                [&] { ++cleanups; });
        stages.join();  // returns only because the failed start stopped the others
        EXPECT_TRUE(stages.stopping());
        failure = stages.failure();
    }
    EXPECT_EQ(attempts.load(), 3) << "nothing starts after the failure";
    EXPECT_EQ(stopped_bodies.load(), 2);
    EXPECT_EQ(cleanups.load(), 2);
    ASSERT_TRUE(failure);
    EXPECT_NE(message_of(failure).find("could not start the stage 2 thread"), std::string::npos)
        << message_of(failure);
    EXPECT_THROW(std::rethrow_exception(failure), RunError);
}

TEST(StageThreads, TheFirstRealFailureWinsAndCleanupRunsAfterItIsRecorded) {
    StageThreads stages({});
    std::atomic<bool> failure_seen_by_cleanup{false};
    stages.start(
        "failing", [](std::stop_token) { throw RunError("the decoder broke"); },
        [&] { failure_seen_by_cleanup = stages.failure() != nullptr; });
    stages.start("stopped", [](std::stop_token stop) {
        wait_for_stop(stop);
        throw Cancelled();
    });
    stages.join();
    EXPECT_TRUE(failure_seen_by_cleanup.load());
    EXPECT_EQ(message_of(stages.failure()), "the decoder broke");
}

TEST(StageThreads, AStopFromOutsideStopsEveryStageWithoutAFailure) {
    std::stop_source outside;
    StageThreads stages(outside.get_token());
    std::atomic<int> ended{0};
    for (int i = 0; i < 3; ++i)
        stages.start("waiting", [&](std::stop_token stop) {
            wait_for_stop(stop);
            ++ended;
        });
    outside.request_stop();
    stages.join();
    EXPECT_EQ(ended.load(), 3);
    EXPECT_TRUE(stages.stopping());
    EXPECT_FALSE(stages.failure());
}

// An input opened or read after the stop gives up with AVERROR_EXIT
// (InputSpec::stop): the run was stopped, that stage did not fail.
TEST(StageThreads, AnInputGivenUpOnForTheStopIsNoFailure) {
    std::stop_source outside;
    StageThreads stages(outside.get_token());
    stages.start("audio", [](std::stop_token stop) {
        wait_for_stop(stop);
        throw av::AvError(AVERROR_EXIT, "opening source.mp4: Immediate exit requested");
    });
    outside.request_stop();
    stages.join();
    EXPECT_TRUE(stages.stopping());
    EXPECT_FALSE(stages.failure());
}

TEST(StageThreads, LeavingTheScopeStopsAndJoins) {
    std::atomic<int> ended{0};
    {
        StageThreads stages({});
        for (int i = 0; i < 3; ++i)
            stages.start("waiting", [&](std::stop_token stop) {
                wait_for_stop(stop);
                ++ended;
            });
    }  // an exception between start() and join() leaves this way
    EXPECT_EQ(ended.load(), 3);
}

TEST(StageThreads, EachStageThreadIsNamedWithWhatTellsItApart) {
    std::mutex mu;
    std::vector<std::string> names;
    {
        StageThreads stages({});
        for (const char* stage : {"decode lane 3", "rung 1080p scaler 12", "encoder worker 15"})
            stages.start(stage, [&](std::stop_token) {
                char name[16] = {};
                pthread_getname_np(pthread_self(), name, sizeof name);
                std::lock_guard lock(mu);
                names.emplace_back(name);
            });
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"1080p scaler 12", "decode lane 3", "worker 15"}));
}

}  // namespace
}  // namespace ladder::engine
