#include "cli/signal_stop.hpp"

#include <fmt/format.h>
#include <pthread.h>

#include <ctime>

namespace ladder::cli {

SignalStop::SignalStop() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    // Threads started after this inherit the mask.
    pthread_sigmask(SIG_BLOCK, &set, &previous_);
    watcher_ = std::jthread([this, set](std::stop_token own) {
        const timespec tick{0, 100'000'000};
        while (!own.stop_requested()) {
            const int received = sigtimedwait(&set, nullptr, &tick);
            if (received <= 0) continue;
            // A second signal (Ctrl-C after a scheduler's SIGTERM) does not
            // change what the run was stopped by.
            int none = 0;
            first_signal_.compare_exchange_strong(none, received);
            stop_.request_stop();
        }
    });
}

SignalStop::~SignalStop() {
    watcher_.request_stop();
    watcher_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int SignalStop::exit_code() const {
    const int received = first_signal_.load();
    return 128 + (received > 0 ? received : SIGINT);
}

std::string SignalStop::signal_name() const {
    switch (first_signal_.load()) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        default: return "";
    }
}

std::string interrupted_line(const SignalStop& signals, const std::string& what) {
    const std::string by = signals.signal_name();
    return fmt::format("ladder: interrupted{}; {}", by.empty() ? "" : " by " + by, what);
}

}  // namespace ladder::cli
