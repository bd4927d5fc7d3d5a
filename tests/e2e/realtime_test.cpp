// No thread of a ladder run may run real-time (engine/encode/process/realtime_lockout.hpp):
// run as root, SVT-AV1 asks for SCHED_FIFO 99 for the thread that opens an
// encoder and for each thread the encoder creates. The preloaded
// tests/fakes/realtime_watch.cpp logs, in ladder and its encoder processes,
// those requests with the kernel's answer and, right after each encoder
// opened (its threads exist by then), whether any thread of the process is
// real-time and whether a new thread could make itself SCHED_FIFO 1. So the
// check happens at a known moment, inside the process, with no sampling.
#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <set>
#include <sstream>

#include "media_tools.hpp"
#include "tests/realtime_probe.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

struct WatchLog {
    struct Ask {
        int pid, policy, priority, error;
    };
    std::vector<Ask> asks;
    std::vector<std::pair<int, int>> probes;  // pid, errno (0: granted)
    std::vector<std::string> realtime_threads;
    int most_threads = 0;
    std::string probes_and_threads;  // the log without its "ask" lines, for messages
};

WatchLog read_watch_log(const fs::path& path) {
    WatchLog log;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string kind;
        words >> kind;
        if (kind != "ask") log.probes_and_threads += line + "\n";
        if (kind == "ask") {
            WatchLog::Ask a{};
            words >> a.pid >> a.policy >> a.priority >> a.error;
            log.asks.push_back(a);
        } else if (kind == "probe") {
            int pid = 0, error = 0;
            words >> pid >> error;
            log.probes.emplace_back(pid, error);
        } else if (kind == "realtime") {
            log.realtime_threads.push_back(line);
        } else if (kind == "threads") {
            int pid = 0, count = 0;
            words >> pid >> count;
            log.most_threads = std::max(log.most_threads, count);
        }
    }
    return log;
}

// Whether this test process may make a thread real-time: where it may not
// (no CAP_SYS_NICE, RLIMIT_RTPRIO 0), a ladder started from it could not
// either, whatever ladder does, and the test would prove nothing.
bool realtime_allowed_here() { return fifo_on_a_new_thread() == 0; }

class Realtime : public ::testing::TestWithParam<std::string> {};

TEST_P(Realtime, NoThreadOfARunRunsRealTime) {
    if (!realtime_allowed_here())
        GTEST_SKIP() << "this process may not use real-time scheduling (not root, no CAP_SYS_NICE, RLIMIT_RTPRIO 0): "
                        "there is nothing for ladder to take away here";
    const std::string isolation = GetParam();
    const fs::path src = make_clip("realtime", {320, 240, "25", 2.0, false, ""});
    const fs::path out = fresh_dir("realtime-" + isolation);
    const fs::path log_path = fresh_dir("realtime-log-" + isolation) / "watch.log";
    const ProcessResult r =
        run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "240p=320x240@400", "--rung",
                    "120p=160x120@150", "--preset", "12", "--segment-seconds", "1", "--cpu-slots", "2",
                    "--isolation", isolation, "--progress", "json"},
                   {std::string("LD_PRELOAD=") + LADDER_TEST_RT_WATCH_LIB, "LADDER_TEST_RT_LOG=" + log_path.string()},
                   120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("real-time scheduling could not be forbidden"), std::string::npos) << r.err;
    const WatchLog log = read_watch_log(log_path);

    // The watch saw the encoders open, with their threads, where they run.
    ASSERT_FALSE(log.probes.empty()) << "no encoder opened under the watch";
    std::set<int> encoder_pids;
    for (const auto& [pid, error] : log.probes) encoder_pids.insert(pid);
    if (isolation == "process") {
        EXPECT_GE(encoder_pids.size(), 2u) << "one encoder process per slot:\n" << log.probes_and_threads;
    } else {
        EXPECT_EQ(encoder_pids.size(), 1u) << "the encoders are in ladder's process:\n" << log.probes_and_threads;
    }
    EXPECT_GT(log.most_threads, 2) << "SVT-AV1's threads were there when they were listed:\n"
                                   << log.probes_and_threads;
    if (::geteuid() == 0) {
        EXPECT_FALSE(log.asks.empty()) << "SVT-AV1 run as root asks for SCHED_FIFO (the case this test is about)";
    }

    const auto granted = std::count_if(log.asks.begin(), log.asks.end(), [](const auto& a) { return a.error == 0; });
    EXPECT_EQ(granted, 0) << granted << " of " << log.asks.size()
                          << " requests for a real-time policy (SVT-AV1's SCHED_FIFO 99) were granted";
    std::string probes_granted;
    for (const auto& [pid, error] : log.probes)
        if (error != EPERM)
            probes_granted += " process " + std::to_string(pid) + ": " +
                              (error == 0 ? std::string("granted") : "errno " + std::to_string(error)) + ";";
    EXPECT_EQ(probes_granted, "") << "a new thread could make itself SCHED_FIFO 1 after an encoder opened";
    EXPECT_TRUE(log.realtime_threads.empty())
        << log.realtime_threads.size() << " real-time threads (PID TID POLICY PRIORITY) after an encoder opened, e.g. "
        << (log.realtime_threads.empty() ? "" : log.realtime_threads.front());
}

INSTANTIATE_TEST_SUITE_P(Isolation, Realtime, ::testing::Values("process", "none"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ladder::test
