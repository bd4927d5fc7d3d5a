#pragma once
// Scales host frames to one size and pixel layout with swscale (bicubic),
// its work split over `threads` slices of the picture: the same pixels as one
// thread, sooner. The context is made again when the input's size or layout
// changes.
#include <string>

#include "av/handles.hpp"

namespace ladder::av {

class FrameScaler {
public:
    // what: who scales, for errors ("rung 720p").
    FrameScaler(std::string what, int width, int height, AVPixelFormat format, int threads);

    // A new frame of the scaler's size and layout, src's properties copied.
    // Throws AvError when swscale refuses.
    FramePtr scale(const AVFrame& src);

    int threads() const { return threads_; }

private:
    void fit(const AVFrame& src);

    std::string what_;
    int width_;
    int height_;
    AVPixelFormat format_;
    int threads_;
    SwsPtr sws_;
    int src_width_ = 0;
    int src_height_ = 0;
    int src_format_ = AV_PIX_FMT_NONE;
};

}  // namespace ladder::av
