#include "cli/stderr_capture.hpp"

#include "cli/crash_report.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace ladder::cli {

StderrCapture::StderrCapture() {
    std::fflush(stderr);
    const int saved = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved < 0) return;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        ::close(saved);
        return;
    }
    std::FILE* original = ::fdopen(saved, "w");
    if (!original || ::dup2(fds[1], STDERR_FILENO) < 0) {
        if (original) std::fclose(original);
        else ::close(saved);
        ::close(fds[0]);
        ::close(fds[1]);
        return;
    }
    ::close(fds[1]);  // fd 2 is now the only write end
    saved_fd_ = saved;
    read_fd_ = fds[0];
    original_ = original;
    set_crash_report_fd(saved_fd_);
}

StderrCapture::~StderrCapture() {
    stop();
    if (original_) std::fclose(original_);  // closes saved_fd_
}

void StderrCapture::start(std::function<void(const std::string&)> on_line) {
    if (read_fd_ < 0 || reader_.joinable()) return;
    on_line_ = std::move(on_line);
    reader_ = std::jthread([this] { read_loop(); });
}

void StderrCapture::read_loop() {
    std::string pending;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(read_fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        pending.append(buf, static_cast<std::size_t>(n));
        std::size_t from = 0;
        for (std::size_t nl; (nl = pending.find('\n', from)) != std::string::npos; from = nl + 1) {
            std::string line = pending.substr(from, nl - from);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (!line.empty()) on_line_(line);
        }
        pending.erase(0, from);
    }
    if (!pending.empty()) on_line_(pending);
}

void StderrCapture::stop() {
    if (read_fd_ < 0) return;
    std::fflush(stderr);
    // Puts the original back on fd 2, which closes the pipe's last write end:
    // the reader sees the end of the stream once it has read everything.
    ::dup2(saved_fd_, STDERR_FILENO);
    set_crash_report_fd(STDERR_FILENO);
    if (reader_.joinable()) reader_.join();
    ::close(read_fd_);
    read_fd_ = -1;
}

}  // namespace ladder::cli
