// Test equipment, never installed: an LD_PRELOAD library that records, in
// every process of a ladder run (ladder and its encoder processes), whether
// a thread could run real-time. SVT-AV1 asks for SCHED_FIFO 99 with
// pthread_setschedparam when it runs as root, and carries on when refused,
// so only what the kernel answered tells whether it got it.
//
// LADDER_TEST_RT_LOG names a file; each process appends lines to it (one
// write per line, O_APPEND, so processes do not mix their lines):
//   ask PID POLICY PRIORITY ERRNO   a pthread_setschedparam call asking for a
//                                   real-time policy, and its answer (0: granted)
//   probe PID ERRNO                 after an encoder opened: what a new thread
//                                   of this process got when it asked for
//                                   SCHED_FIFO 1 itself (0: granted)
//   threads PID COUNT               after an encoder opened: the process's threads
//   realtime PID TID POLICY PRIORITY  one of them has a real-time policy
// The probe and the thread list come after avcodec_open2, because SVT-AV1
// creates its threads and sets their policy inside it.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/realtime_probe.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace {

void record(const std::string& line) {
    const char* path = std::getenv("LADDER_TEST_RT_LOG");
    if (!path || !*path) return;
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const std::string text = line + "\n";
    (void)!::write(fd, text.data(), text.size());
    ::close(fd);
}

// A thread of its own, so that a probe that succeeds changes nothing that
// lasts: the thread ends right after.
void probe() {
    const int result = ladder::test::fifo_on_a_new_thread();
    if (result == -1) return;
    record("probe " + std::to_string(::getpid()) + " " + std::to_string(result));
}

void list_threads() {
    DIR* dir = ::opendir("/proc/self/task");
    if (!dir) return;
    int count = 0;
    while (const dirent* e = ::readdir(dir)) {
        if (e->d_name[0] == '.') continue;
        const pid_t tid = std::atoi(e->d_name);
        ++count;
        const int policy = ::sched_getscheduler(tid);
        sched_param param{};
        if (policy < 0 || ::sched_getparam(tid, &param) != 0 || !ladder::test::realtime_policy(policy)) continue;
        record("realtime " + std::to_string(::getpid()) + " " + std::to_string(tid) + " " + std::to_string(policy) +
               " " + std::to_string(param.sched_priority));
    }
    ::closedir(dir);
    record("threads " + std::to_string(::getpid()) + " " + std::to_string(count));
}

}  // namespace

extern "C" int pthread_setschedparam(pthread_t thread, int policy, const sched_param* param) {
    using Real = int (*)(pthread_t, int, const sched_param*);
    static const auto real = reinterpret_cast<Real>(::dlsym(RTLD_NEXT, "pthread_setschedparam"));
    const int rc = real(thread, policy, param);
    if (ladder::test::realtime_policy(policy))
        record("ask " + std::to_string(::getpid()) + " " + std::to_string(policy) + " " +
               std::to_string(param->sched_priority) + " " + std::to_string(rc));
    return rc;
}

extern "C" int avcodec_open2(AVCodecContext* ctx, const AVCodec* codec, AVDictionary** options) {
    using Real = int (*)(AVCodecContext*, const AVCodec*, AVDictionary**);
    static const auto real = reinterpret_cast<Real>(::dlsym(RTLD_NEXT, "avcodec_open2"));
    const int rc = real(ctx, codec, options);
    if (rc == 0 && ctx && ctx->codec && av_codec_is_encoder(ctx->codec)) {
        probe();
        list_threads();
    }
    return rc;
}
