#pragma once
// Test helper: tells whether another thread is blocked (asleep in the kernel),
// so tests can sequence "A waits, then B waits" without guessing with sleeps.
//
// A thread records its kernel id and sets `about_to_block` right before the
// blocking call; the test then waits until /proc says the thread is sleeping
// ('S') several times in a row. Since nothing else holds the object's mutex
// for long, a sleeping thread past that point is inside the blocking wait.
// If the thread finishes instead (the call did not block), the probe says so
// and the test's own assertions catch it: the probe never makes a test pass.
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace ladder::test {

inline pid_t current_tid() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// Thread state letter from /proc/self/task/<tid>/stat, or 0 if the thread is gone.
inline char thread_state(pid_t tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
    if (!in) return 0;
    std::string line;
    std::getline(in, line);
    // "tid (comm) S ...": comm may contain spaces or ')', so use the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 >= line.size()) return 0;
    return line[close + 2];
}

// Filled in by the thread under test.
struct BlockProbe {
    std::atomic<pid_t> tid{0};
    std::atomic<bool> about_to_block{false};

    // Call in the thread under test, immediately before the blocking call.
    void arm() {
        tid.store(current_tid());
        about_to_block.store(true);
    }
};

enum class ProbeResult { blocked, exited, timeout };

// Waits until the probed thread has armed the probe and is then seen asleep
// `confirmations` times in a row (1 ms apart).
inline ProbeResult wait_until_blocked(const BlockProbe& probe,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(20),
                                      int confirmations = 5) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!probe.about_to_block.load()) {
        if (std::chrono::steady_clock::now() > deadline) return ProbeResult::timeout;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    const pid_t tid = probe.tid.load();
    int seen = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        const char s = thread_state(tid);
        if (s == 0) return ProbeResult::exited;
        seen = (s == 'S') ? seen + 1 : 0;
        if (seen >= confirmations) return ProbeResult::blocked;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return ProbeResult::timeout;
}

inline const char* to_string(ProbeResult r) {
    switch (r) {
        case ProbeResult::blocked: return "blocked";
        case ProbeResult::exited: return "exited";
        case ProbeResult::timeout: return "timeout";
    }
    return "?";
}

}  // namespace ladder::test
