#include "cli/signal_stop.hpp"

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
            if (sigtimedwait(&set, nullptr, &tick) > 0) stop_.request_stop();
        }
    });
}

SignalStop::~SignalStop() {
    watcher_.request_stop();
    watcher_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace ladder::cli
