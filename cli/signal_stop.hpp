#pragma once
// Turns SIGINT/SIGTERM into a stop request for the run. The signals are
// blocked in every thread and received by one watcher thread (sigtimedwait),
// so no engine thread is ever interrupted inside FFmpeg.
#include <csignal>
#include <stop_token>
#include <thread>

namespace ladder::cli {

class SignalStop {
public:
    SignalStop();
    ~SignalStop();
    SignalStop(const SignalStop&) = delete;
    SignalStop& operator=(const SignalStop&) = delete;

    std::stop_token token() const { return stop_.get_token(); }

private:
    std::stop_source stop_;
    sigset_t previous_{};
    std::jthread watcher_;
};

}  // namespace ladder::cli
