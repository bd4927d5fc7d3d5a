// FFmpeg's error messages are folded into ladder's own error line while a
// capture is alive on the thread, and left alone otherwise.
#include <gtest/gtest.h>

#include <thread>

#include "av/logging.hpp"

extern "C" {
#include <libavutil/log.h>
}

namespace ladder::av {
namespace {

TEST(LibraryLogCapture, CollectsErrorsOnItsThreadOnly) {
    std::string text;
    {
        LibraryLogCapture capture;
        av_log(nullptr, AV_LOG_ERROR, "moov atom not found\n");
        av_log(nullptr, AV_LOG_DEBUG, "not an error\n");
        // Another thread's messages are not this capture's (this one is printed).
        std::thread([] { av_log(nullptr, AV_LOG_ERROR, "from another thread (expected in the test log)\n"); }).join();
        av_log(nullptr, AV_LOG_FATAL, "second %d\n", 2);
        text = capture.text();
    }
    EXPECT_EQ(text, "moov atom not found; second 2");
}

TEST(LibraryLogCapture, EndsWithItsScope) {
    {
        LibraryLogCapture capture;
    }
    LibraryLogCapture later;
    av_log(nullptr, AV_LOG_ERROR, "only this\n");
    EXPECT_EQ(later.text(), "only this");
}

// A capture made while another is alive on the thread (the cut search
// tries a decoder quietly, whoever calls it): the outer one goes on
// collecting after it.
TEST(LibraryLogCapture, OneInsideAnotherHandsTheThreadBack) {
    LibraryLogCapture outer;
    av_log(nullptr, AV_LOG_ERROR, "before\n");
    {
        LibraryLogCapture inner;
        av_log(nullptr, AV_LOG_ERROR, "inside\n");
        EXPECT_EQ(inner.text(), "inside");
    }
    av_log(nullptr, AV_LOG_ERROR, "after\n");
    EXPECT_EQ(outer.text(), "before; after");
}

}  // namespace
}  // namespace ladder::av
