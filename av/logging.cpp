#include "av/logging.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>

extern "C" {
#include <libavutil/log.h>
}

namespace ladder::av {

void quiet_library_logs() {
    int level = AV_LOG_ERROR;
    if (const char* env = std::getenv("LADDER_FFMPEG_LOG")) {
        const std::string_view v(env);
        if (v == "warning") level = AV_LOG_WARNING;
        if (v == "info") level = AV_LOG_INFO;
        if (v == "debug") level = AV_LOG_DEBUG;
    }
    av_log_set_level(level);
    // Before any encoder thread exists; does not override the user's choice.
    setenv("SVT_LOG", "1", 0);
}

namespace {

thread_local LibraryLogCapture* active_capture = nullptr;

void log_callback(void* avcl, int level, const char* fmt, va_list vl) {
    if (active_capture && level <= AV_LOG_ERROR) {
        char line[1024];
        std::vsnprintf(line, sizeof line, fmt, vl);
        capture_line(*active_capture, line);
        return;
    }
    av_log_default_callback(avcl, level, fmt, vl);
}

}  // namespace

void capture_line(LibraryLogCapture& capture, const char* line) {
    std::string_view text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    if (text.empty()) return;
    if (!capture.text_.empty()) capture.text_ += "; ";
    capture.text_ += text;
}

LibraryLogCapture::LibraryLogCapture() {
    static std::once_flag installed;
    std::call_once(installed, [] { av_log_set_callback(log_callback); });
    outer_ = active_capture;
    active_capture = this;
}

// A capture made inside another hands the thread back to it.
LibraryLogCapture::~LibraryLogCapture() { active_capture = outer_; }

void LibraryLogCapture::replay() const {
    if (!text_.empty()) av_log(nullptr, AV_LOG_ERROR, "%s\n", text_.c_str());
}

}  // namespace ladder::av
