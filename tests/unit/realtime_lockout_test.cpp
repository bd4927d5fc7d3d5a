// forbid_realtime_scheduling() (engine/encode/process/realtime_lockout.*) cannot be undone,
// so it runs in a child process of its own: afterwards a thread that was
// real-time before (a ladder started with chrt) is not, none can become
// real-time, and neither can a program the process executes as root (chrt,
// standing for ladder's encoder processes: the bounding set, not the
// process's own capabilities, decides what an exec as root gets back).
#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/encode/process/realtime_lockout.hpp"
#include "tests/realtime_probe.hpp"

namespace ladder::engine {
namespace {

using test::fifo_on_a_new_thread;

constexpr const char* kChrt = "/usr/bin/chrt";


bool has_capability(int cap) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> cap & 1) != 0;
    return false;
}

// The exit status of `chrt -f 1 /bin/true` started from this process.
int chrt_status() {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const char* argv[] = {"chrt", "-f", "1", "/bin/true", nullptr};
        ::execv(kChrt, const_cast<char* const*>(argv));
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

enum ChildResult {
    ok = 0,
    could_not_start_real_time = 10,
    still_real_time,
    became_real_time_again,
    says_still_allowed,
    an_exec_ran_real_time,
};

const char* describe(int code) {
    switch (code) {
        case ok: return "ok";
        case could_not_start_real_time: return "the child could not make itself SCHED_FIFO (set-up)";
        case still_real_time: return "the thread that was SCHED_FIFO still is";
        case became_real_time_again: return "the thread could make itself SCHED_FIFO 1 again";
        case says_still_allowed: return "realtime_scheduling_allowed() names a way";
        case an_exec_ran_real_time: return "chrt -f 1, executed afterwards, ran real-time";
        default: return "the child died";
    }
}

// No thread is started here: a child of a process that has threads may not
// start any under ThreadSanitizer (scripts/run-sanitizers.sh runs this).
int child(bool check_exec) {
    const sched_param fifo{1};
    if (::sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) return could_not_start_real_time;
    forbid_realtime_scheduling();
    if (::sched_getscheduler(0) != SCHED_OTHER) return still_real_time;
    if (::sched_setscheduler(0, SCHED_FIFO, &fifo) == 0 || errno != EPERM) return became_real_time_again;
    if (!realtime_scheduling_allowed().empty()) return says_still_allowed;
    if (check_exec && chrt_status() == 0) return an_exec_ran_real_time;
    return ok;
}

TEST(RealtimeLockout, NothingRunsRealTimeAfterwardsNotEvenAfterAnExec) {
    if (fifo_on_a_new_thread() != 0)
        GTEST_SKIP() << "this process may not use real-time scheduling (not root, no CAP_SYS_NICE, RLIMIT_RTPRIO 0): "
                        "there is nothing to take away here";
    // Without CAP_SETPCAP the bounding set stays, and an exec as root gets
    // CAP_SYS_NICE back (ladder's encoder processes then drop it themselves).
    const bool check_exec = std::filesystem::exists(kChrt) && has_capability(8 /* CAP_SETPCAP */);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(child(check_exec));
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), ok) << describe(WEXITSTATUS(status));
    RecordProperty("exec_checked", check_exec ? "yes" : "no (no chrt, or no CAP_SETPCAP)");
}

}  // namespace
}  // namespace ladder::engine
