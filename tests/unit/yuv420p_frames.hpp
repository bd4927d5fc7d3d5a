#pragma once
// Test helper: 8-bit 4:2:0 frames filled sample by sample (planes Y, U, V,
// rows top to bottom), square pixels.
#include <cstdint>
#include <functional>

#include "av/av_error.hpp"
#include "av/handles.hpp"

namespace ladder::test {

inline av::FramePtr yuv420p_frame(int w, int h, int pts, const std::function<std::uint8_t(int plane)>& sample) {
    av::FramePtr f = av::make_frame();
    f->width = w;
    f->height = h;
    f->format = AV_PIX_FMT_YUV420P;
    av::check(av_frame_get_buffer(f.get(), 0), "alloc");
    for (int p = 0; p < 3; ++p) {
        const int rows = p == 0 ? h : h / 2;
        const int cols = p == 0 ? w : w / 2;
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) f->data[p][y * f->linesize[p] + x] = sample(p);
    }
    f->pts = pts;
    f->sample_aspect_ratio = AVRational{1, 1};
    return f;
}

}  // namespace ladder::test
