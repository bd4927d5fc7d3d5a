#pragma once
// Turns SIGINT/SIGTERM into a stop request for the run. The signals are
// blocked in every thread and received by one watcher thread (sigtimedwait),
// so no engine thread is ever interrupted inside FFmpeg.
//
// The exit code of a stopped run is the shell's for the signal (128 + its
// number: 130 for SIGINT, 143 for SIGTERM), so a batch scheduler or a
// Kubernetes podFailurePolicy can tell a preemption (SIGTERM) from Ctrl-C.
#include <atomic>
#include <csignal>
#include <stop_token>
#include <string>
#include <thread>

namespace ladder::cli {

class SignalStop {
public:
    SignalStop();
    ~SignalStop();
    SignalStop(const SignalStop&) = delete;
    SignalStop& operator=(const SignalStop&) = delete;

    std::stop_token token() const { return stop_.get_token(); }
    // 128 + the first signal received; 130 (as for SIGINT) when the run was
    // stopped without one.
    int exit_code() const;
    // "SIGTERM", "SIGINT", or "" when none was received.
    std::string signal_name() const;

private:
    std::stop_source stop_;
    std::atomic<int> first_signal_{0};
    sigset_t previous_{};
    std::jthread watcher_;
};

// The last line of a stopped run: "ladder: interrupted by SIGTERM; <what>".
std::string interrupted_line(const SignalStop& signals, const std::string& what);

}  // namespace ladder::cli
