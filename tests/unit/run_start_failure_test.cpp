// A run whose Nth stage thread cannot be started, for every N: it fails with
// a RunError naming that stage, the stages already started are stopped and
// joined before anything they use is destroyed (the sanitizer builds run
// this), every rung reads as failed and nothing looks complete.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "av/logging.hpp"
#include "engine/base/errors.hpp"
#include "engine/run/job.hpp"

namespace ladder::engine {
namespace {

namespace fs = std::filesystem;

fs::path sample_clip() {
    const char* dir = std::getenv("LADDER_SOURCE_DIR");
    return fs::path(dir ? dir : LADDER_SOURCE_DIR_DEFAULT) / "samples" / "sample.mp4";
}

class RungStates : public ProgressSink {
public:
    void rung_state(int, const std::string&, RungState state) override { last = state; }
    RungState last = RungState::pending;
};

TEST(RunStartFailure, EachStageThatCannotStartFailsTheRunCleanly) {
    av::quiet_library_logs();
    const fs::path root = fs::temp_directory_path() / fmt::format("ladder-start-failure-{}", ::getpid());
    fs::remove_all(root);
    int runs_failed = 0;
    for (int fail_at = 0;; ++fail_at) {
        ASSERT_LT(fail_at, 32) << "a run starts a handful of threads";
        JobOptions o;
        o.input = sample_clip();
        o.outdir = root / fmt::format("out-{}", fail_at);
        o.ladder = LadderSpec{{{"90p", 160, 90, 150, 0, 0}}};
        o.preset = 12;
        o.cpu_slots = 2;
        o.isolation = EncoderIsolation::in_process;
        std::atomic<int> attempts{0};
        JobSeams seams;
        seams.start_thread = [fail_at, &attempts](std::function<void()> body) {
            if (attempts++ == fail_at)
                throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                        "pthread_create");
            return std::jthread(std::move(body));
        };
        RungStates progress;
        try {
            run_job(o, progress, {}, seams);
        } catch (const RunError& e) {
            ++runs_failed;
            EXPECT_NE(std::string(e.what()).find("could not start the"), std::string::npos) << e.what();
            EXPECT_EQ(attempts.load(), fail_at + 1) << "nothing starts after the failure";
            EXPECT_EQ(progress.last, RungState::failed);
            EXPECT_FALSE(fs::exists(o.outdir / "master.m3u8"));
            EXPECT_FALSE(fs::exists(o.outdir / "90p" / "index.m3u8"));
            continue;
        }
        // Every thread started: the run is whole.
        EXPECT_EQ(attempts.load(), fail_at);
        EXPECT_TRUE(fs::exists(o.outdir / "master.m3u8"));
        break;
    }
    // pump, the complexity analysis's scaler and encoder, the rung's scaler
    // and writer, the audio rendition, two workers
    EXPECT_EQ(runs_failed, 8);
    fs::remove_all(root);
}

}  // namespace
}  // namespace ladder::engine
