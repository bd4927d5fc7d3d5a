// av::FrameScaler: a scaler whose work is split over threads gives the same
// pixels as one thread (the lanes' scalers choose their thread count by the
// machine, and the same command must give the same ladder on any machine),
// and a new input size is scaled too.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <tuple>

#include "av/av_error.hpp"
#include "av/frame_scaler.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace ladder::av {
namespace {

// Noise, so that every filter tap counts (a flat frame scales the same anyhow).
FramePtr noise_frame(int w, int h, AVPixelFormat format, std::uint32_t seed) {
    FramePtr f = make_frame();
    f->width = w;
    f->height = h;
    f->format = format;
    check(av_frame_get_buffer(f.get(), 0), "alloc");
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
    const int bytes = d->comp[0].depth > 8 ? 2 : 1;
    for (int p = 0; p < 3; ++p) {
        const int rows = p == 0 ? h : AV_CEIL_RSHIFT(h, d->log2_chroma_h);
        const int cols = p == 0 ? w : AV_CEIL_RSHIFT(w, d->log2_chroma_w);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) {
                seed = seed * 1664525u + 1013904223u;
                std::uint8_t* at = f->data[p] + y * f->linesize[p] + x * bytes;
                if (bytes == 1) {
                    *at = static_cast<std::uint8_t>(seed >> 24);
                } else {
                    const auto v = static_cast<std::uint16_t>((seed >> 16) & 0x3ff);
                    std::memcpy(at, &v, 2);
                }
            }
    }
    return f;
}

bool same_pixels(const AVFrame& a, const AVFrame& b) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(a.format));
    const int bytes = d->comp[0].depth > 8 ? 2 : 1;
    for (int p = 0; p < 3; ++p) {
        const int rows = p == 0 ? a.height : AV_CEIL_RSHIFT(a.height, d->log2_chroma_h);
        const int cols = p == 0 ? a.width : AV_CEIL_RSHIFT(a.width, d->log2_chroma_w);
        for (int y = 0; y < rows; ++y)
            if (std::memcmp(a.data[p] + y * a.linesize[p], b.data[p] + y * b.linesize[p],
                            static_cast<std::size_t>(cols * bytes)) != 0)
                return false;
    }
    return true;
}

class ThreadedScaling : public ::testing::TestWithParam<std::tuple<int, int, AVPixelFormat>> {};

TEST_P(ThreadedScaling, GivesTheSamePixelsAsOneThread) {
    const auto [w, h, format] = GetParam();
    FrameScaler one("one thread", w, h, format, 1);
    FrameScaler four("four threads", w, h, format, 4);
    // Two source sizes: the second makes both scalers again.
    for (auto [sw, sh] : {std::pair{1920, 1080}, std::pair{1918, 1078}}) {
        FramePtr src = noise_frame(sw, sh, format, static_cast<std::uint32_t>(sw + w));
        src->pts = 42;
        FramePtr a = one.scale(*src);
        FramePtr b = four.scale(*src);
        ASSERT_EQ(a->width, w);
        ASSERT_EQ(b->height, h);
        EXPECT_EQ(b->pts, 42);
        EXPECT_TRUE(same_pixels(*a, *b)) << sw << "x" << sh << " to " << w << "x" << h << " "
                                         << av_get_pix_fmt_name(format);
    }
}

INSTANTIATE_TEST_SUITE_P(Rungs, ThreadedScaling,
                         ::testing::Values(std::tuple{1280, 720, AV_PIX_FMT_YUV420P},
                                           std::tuple{960, 540, AV_PIX_FMT_YUV420P},
                                           std::tuple{640, 360, AV_PIX_FMT_YUV420P},
                                           std::tuple{320, 180, AV_PIX_FMT_YUV420P},
                                           std::tuple{1280, 720, AV_PIX_FMT_YUV420P10LE},
                                           std::tuple{854, 480, AV_PIX_FMT_YUV420P10LE}));

TEST(FrameScaler, ASizeSwscaleRefusesIsAnErrorThatNamesTheScaler) {
    FrameScaler scaler("rung tiny", 0, 0, AV_PIX_FMT_YUV420P, 2);
    FramePtr src = noise_frame(64, 64, AV_PIX_FMT_YUV420P, 1);
    try {
        scaler.scale(*src);
        FAIL() << "scaled to 0x0";
    } catch (const AvError& e) {
        EXPECT_NE(std::string(e.what()).find("rung tiny"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace ladder::av
