#include "cli/crash_report.hpp"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <initializer_list>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <typeinfo>
#include <vector>

#include <cxxabi.h>

namespace ladder::cli {

namespace {

std::atomic<int> report_fd{2};

// Only async-signal-safe calls below: write(2), backtrace_symbols_fd
// (backtrace() is made safe by calling it once before any crash: it loads
// libgcc lazily otherwise).
void say(const char* text) {
    const int fd = report_fd.load();
    std::size_t left = std::strlen(text);
    while (left > 0) {
        const ssize_t n = ::write(fd, text, left);
        if (n <= 0) return;
        text += n;
        left -= static_cast<std::size_t>(n);
    }
}

// The parts as one write(2): another thread that writes lines to the same
// stderr (the progress renderer) cannot end up inside the message.
void say_line(std::initializer_list<const char*> parts) {
    char line[512];
    std::size_t used = 0;
    for (const char* part : parts) {
        const std::size_t n = std::min(std::strlen(part), sizeof line - used);
        std::memcpy(line + used, part, n);
        used += n;
    }
    const int fd = report_fd.load();
    const char* text = line;
    while (used > 0) {
        const ssize_t n = ::write(fd, text, used);
        if (n <= 0) return;
        text += n;
        used -= static_cast<std::size_t>(n);
    }
}

void print_backtrace() {
    void* frames[64];
    const int n = backtrace(frames, 64);
    say("ladder: backtrace (please attach it to a bug report):\n");
    backtrace_symbols_fd(frames, n, report_fd.load());
}

void on_fatal_signal(int sig) {
    say_line({"ladder: crashed with signal ", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", " (",
              sigdescr_np(sig) ? sigdescr_np(sig) : "unknown",
              "); this is a bug in ladder or a library it uses. Outputs of this run are incomplete.\n"});
    print_backtrace();
    // Die of the same signal, so the exit status and any core dump are the
    // ones the signal would have given.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

void on_terminate() {
    say("ladder: terminated by an unhandled exception");
    if (auto eptr = std::current_exception()) {
        try {
            std::rethrow_exception(eptr);
        } catch (const std::exception& e) {
            say(": ");
            say(e.what());
        } catch (...) {
        }
    }
    say("\n");
    print_backtrace();
    ::signal(SIGABRT, SIG_DFL);
    std::abort();
}

}  // namespace

void set_crash_report_fd(int fd) { report_fd.store(fd >= 0 ? fd : 2); }

void install_crash_report() {
    void* warm[1];
    backtrace(warm, 1);  // loads the unwinder now, not inside a signal handler

    static std::vector<char> alt_stack(static_cast<std::size_t>(SIGSTKSZ) * 4);
    stack_t ss{};
    ss.ss_sp = alt_stack.data();
    ss.ss_size = alt_stack.size();
    sigaltstack(&ss, nullptr);

    struct sigaction sa{};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
    std::set_terminate(on_terminate);
}

}  // namespace ladder::cli
