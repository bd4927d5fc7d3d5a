// SIGINT / SIGTERM stop a run within seconds (not after the remaining 18 s
// of source), join every thread, leave nothing that claims to be complete,
// and exit with 130.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <thread>

#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

struct Stopped {
    int exit_code = -1;
    double seconds_after_signal = 0;
};

Stopped run_and_signal(const std::vector<std::string>& args, int signal, double after_seconds) {
    const int pid = spawn_ladder(args);
    std::this_thread::sleep_for(std::chrono::duration<double>(after_seconds));
    const auto sent = std::chrono::steady_clock::now();
    kill(pid, signal);
    Stopped s;
    s.exit_code = wait_exit(pid);
    s.seconds_after_signal = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    return s;
}

void expect_nothing_complete(const fs::path& out) {
    EXPECT_FALSE(fs::exists(out / "master.m3u8"));
    if (!fs::exists(out)) return;
    for (const auto& e : fs::recursive_directory_iterator(out)) {
        const std::string name = e.path().filename().string();
        EXPECT_EQ(name.find(".part"), std::string::npos) << e.path();
        EXPECT_NE(name, "index.m3u8") << "a finished-looking playlist: " << e.path();
        if (e.path().extension() == ".mp4" && e.path().parent_path() == out)
            ADD_FAILURE() << "a finished-looking MP4: " << e.path();
    }
}

class Cancel : public ::testing::TestWithParam<int> {};

TEST_P(Cancel, StopsWithinSecondsAndLeavesNothingLookingComplete) {
    const fs::path src = make_clip("cancel", {640, 360, "25", 20.0, true, ""});
    const fs::path out = fresh_dir(GetParam() == SIGINT ? "cancel-int" : "cancel-term");
    const Stopped s = run_and_signal({"encode", src.string(), "-o", out.string(), "--format", "both", "--rung",
                                      "360p=640x360@800", "--rung", "180p=320x180@300", "--preset", "8"},
                                     GetParam(), 1.5);
    std::printf("[ metric   ] stopped %.2f s after the signal\n", s.seconds_after_signal);
    EXPECT_EQ(s.exit_code, 130);
    // What remains after the signal is mostly SVT-AV1 tearing down its
    // encoders, one at a time (av/codec_lifecycle.*): with two slots at
    // preset 8 on the 2-core Intel VM, 1.1-1.5 s with the test alone, 2.3-2.4 s
    // in full CI runs, 2.8-3.8 s next to a compile; one slot takes about
    // half. It was under 2 s on the faster AMD VM. Finishing the encode
    // instead would take 15 s or more, which this bound still catches.
    EXPECT_LT(s.seconds_after_signal, 5.0);
    expect_nothing_complete(out);
}

INSTANTIATE_TEST_SUITE_P(Signals, Cancel, ::testing::Values(SIGINT, SIGTERM));

}  // namespace
}  // namespace ladder::test
