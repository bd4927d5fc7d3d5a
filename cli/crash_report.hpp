#pragma once
// A crash (fatal signal or std::terminate) prints what happened and a
// backtrace before the process dies the way it would have. It writes to the
// original stderr even while --progress json has fd 2 captured, because a
// pipe whose reader dies with the process would swallow the last words.
namespace ladder::cli {

// Installs the handlers (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT and
// std::terminate) on an alternate signal stack, so that a stack overflow is
// reported too. Call once, early in main.
void install_crash_report();

// Where the report goes (default 2); StderrCapture points it at the saved
// terminal stderr while it holds fd 2.
void set_crash_report_fd(int fd);

}  // namespace ladder::cli
