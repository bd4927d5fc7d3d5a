#pragma once
// FFmpeg and SVT-AV1 write to stderr on their own. ladder keeps them to
// errors so its own output stays readable; LADDER_FFMPEG_LOG=warning|info|
// debug raises FFmpeg's level, SVT_LOG (SVT-AV1's own variable) is respected.
#include <string>

namespace ladder::av {

void quiet_library_logs();

// While alive, FFmpeg's error messages logged on this thread are collected
// instead of printed, so that a failure ladder reports itself (an input it
// cannot open) stays one line that includes them. One made inside another
// on the same thread collects until it ends, then the outer one again.
class LibraryLogCapture {
public:
    LibraryLogCapture();
    ~LibraryLogCapture();
    LibraryLogCapture(const LibraryLogCapture&) = delete;
    LibraryLogCapture& operator=(const LibraryLogCapture&) = delete;

    // The messages so far, joined with "; ".
    const std::string& text() const { return text_; }
    // Prints what was collected after all (for a success after all).
    void replay() const;

private:
    friend void capture_line(LibraryLogCapture&, const char*);
    std::string text_;
    LibraryLogCapture* outer_ = nullptr;  // the thread's capture before this one
};

}  // namespace ladder::av
