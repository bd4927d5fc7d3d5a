#pragma once
// For `--progress json`: keeps stderr a clean stream of JSON lines although
// libraries (FFmpeg's av_log, SVT-AV1, libaom) write their own messages to
// file descriptor 2. While a capture is active, fd 2 is a pipe; a reader
// thread hands each line written to it to `on_line` (the JSON renderer turns
// it into a "log" event), and `stream()` writes to the original stderr.
// stop() (or the destructor) puts fd 2 back and delivers the last lines.
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

namespace ladder::cli {

class StderrCapture {
public:
    // Starts capturing; on failure (no pipe), does nothing and stream() is
    // stderr itself.
    StderrCapture();
    ~StderrCapture();
    StderrCapture(const StderrCapture&) = delete;
    StderrCapture& operator=(const StderrCapture&) = delete;

    // The original stderr, for the renderer's own lines.
    std::FILE* stream() const { return original_ ? original_ : stderr; }
    // Starts delivering captured lines (called from the reader thread).
    void start(std::function<void(const std::string&)> on_line);
    // Restores fd 2, waits for the reader to deliver what is left. Idempotent.
    void stop();

private:
    void read_loop();

    int saved_fd_ = -1;   // dup of the original fd 2
    int read_fd_ = -1;
    std::FILE* original_ = nullptr;
    std::function<void(const std::string&)> on_line_;
    std::jthread reader_;
};

}  // namespace ladder::cli
