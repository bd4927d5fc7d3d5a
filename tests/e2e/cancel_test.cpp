// SIGINT / SIGTERM stop a run within seconds (not after the remaining 18 s
// of source), join every thread, leave nothing that claims to be complete,
// and exit with the shell's code for the signal: 130 for SIGINT, 143 for
// SIGTERM (what batch schedulers send on preemption).
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <thread>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

struct Stopped {
    int exit_code = -1;
    double seconds_after_signal = 0;
    std::string err;
};

// Signals the run once its first chunk is journaled (it is encoding by
// then), and collects what it printed.
Stopped run_and_signal(const std::vector<std::string>& args, const fs::path& out, int signal) {
    const fs::path err_file = out.string() + ".stderr";
    const int pid = spawn_ladder(args, err_file);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (journaled_chunks(out) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto sent = std::chrono::steady_clock::now();
    kill(pid, signal);
    Stopped s;
    s.exit_code = wait_exit(pid);
    s.seconds_after_signal = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    s.err = read_text(err_file);
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
                                      "360p=640x360@800", "--rung", "180p=320x180@300", "--preset", "8",
                                      "--progress", "plain"},
                                     out, GetParam());
    std::printf("[ metric   ] stopped %.2f s after the signal\n", s.seconds_after_signal);
    EXPECT_EQ(s.exit_code, 128 + GetParam());
    const std::string by = GetParam() == SIGINT ? "SIGINT" : "SIGTERM";
    EXPECT_NE(s.err.find("ladder: interrupted by " + by + "; no output was left looking complete; the finished "
                         "chunks are kept in " + (out / ".ladder").string() + ": the same command with --resume"),
              std::string::npos)
        << s.err;
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
