#include "engine/encode/process/encoder_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "engine/base/errors.hpp"

extern char** environ;

namespace ladder::engine {

namespace {

std::string describe_status(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* abbrev = sigabbrev_np(sig);
        return fmt::format("was killed by signal {} (SIG{}: {})", sig, abbrev ? abbrev : "?", strsignal(sig));
    }
    if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
    return fmt::format("ended with wait status {}", status);
}

}  // namespace

EncoderProcess::EncoderProcess() {
    auto [ours, theirs] = ipc::socket_pair();
    // Above the standard descriptors, so the dup2 onto fd 3 below always
    // makes a new descriptor (which drops close-on-exec).
    av::UniqueFd child_end(::fcntl(theirs.get(), F_DUPFD_CLOEXEC, 10));
    if (!child_end) throw RunError(fmt::format("starting an encoder process: {}", std::strerror(errno)));

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, child_end.get(), kEncoderProcessSocketFd);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // ladder blocks SIGINT/SIGTERM in every thread (a thread waits for
    // them); the encoder process starts with nothing blocked.
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);

    // Always ladder's own binary, with one fixed argument: no shell, no
    // path search, nothing from the user.
    char arg0[] = "ladder";
    std::string arg1 = kEncoderProcessArgument;
    char* argv[] = {arg0, arg1.data(), nullptr};
    const int rc = ::posix_spawn(&pid_, "/proc/self/exe", &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        pid_ = -1;
        throw RunError(fmt::format("starting an encoder process: {}", std::strerror(rc)));
    }
    socket_ = ipc::Socket(std::move(ours));
}

EncoderProcess::~EncoderProcess() {
    close_socket();
    if (pid_ > 0 && ended_.empty()) wait_for_end(std::chrono::milliseconds(1000));
}

void EncoderProcess::kill() {
    if (pid_ <= 0 || !ended_.empty()) return;
    ::kill(pid_, SIGKILL);
    wait_for_end(std::chrono::milliseconds(0));
}

void EncoderProcess::kill_now() const {
    if (pid_ > 0 && ended_.empty()) ::kill(pid_, SIGKILL);
}

std::string EncoderProcess::reap() {
    if (pid_ <= 0) return "was not running";
    if (ended_.empty()) wait_for_end(std::chrono::milliseconds(1000));
    return ended_;
}

std::string EncoderProcess::wait_for_end(std::chrono::milliseconds grace) {
    // A process whose socket closed is exiting: it is normally reaped on
    // the first try. One that is not gone after the grace period is killed.
    const auto deadline = std::chrono::steady_clock::now() + grace;
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) break;
        if (r < 0 && errno != EINTR) {
            ended_ = fmt::format("could not be waited for ({})", std::strerror(errno));
            return ended_;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::kill(pid_, SIGKILL);
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ended_ = describe_status(status);
    return ended_;
}

}  // namespace ladder::engine
