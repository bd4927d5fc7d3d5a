#pragma once
// Test equipment shared by the real-time scheduling tests (the unit test of
// the lockout, the e2e test, and the preloaded watcher): what a new thread
// of this process gets when it asks for SCHED_FIFO 1. The probe runs on a
// thread of its own that ends right after, so a grant changes nothing that
// lasts.
#include <pthread.h>
#include <sched.h>

#include <cerrno>

namespace ladder::test {

inline bool realtime_policy(int policy) {
    policy &= ~SCHED_RESET_ON_FORK;
    return policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
}

// 0: granted; else the errno of the refusal; -1: no thread could be started.
inline int fifo_on_a_new_thread() {
    int result = -1;
    auto ask = [](void* out) -> void* {
        const sched_param lowest{1};
        *static_cast<int*>(out) = ::sched_setscheduler(0, SCHED_FIFO, &lowest) == 0 ? 0 : errno;
        return nullptr;
    };
    pthread_t th;
    if (::pthread_create(&th, nullptr, ask, &result) != 0) return -1;
    ::pthread_join(th, nullptr);
    return result;
}

}  // namespace ladder::test
