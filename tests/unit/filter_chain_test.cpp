// av::FilterChain: the scale filters a graph inserts to convert formats
// round the same on every CPU (av/bitexact_scaling.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "av/av_error.hpp"
#include "av/filter_chain.hpp"
#include "av/handles.hpp"

extern "C" {
#include <libavutil/cpu.h>
}

namespace ladder::av {
namespace {

// A 4:2:2 frame of noise: converting it to 4:2:0 filters its chroma.
FramePtr noisy_yuv422p(int w, int h) {
    FramePtr f = make_frame();
    f->width = w;
    f->height = h;
    f->format = AV_PIX_FMT_YUV422P;
    check(av_frame_get_buffer(f.get(), 0), "alloc");
    std::uint32_t state = 777;
    for (int p = 0; p < 3; ++p)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < (p == 0 ? w : w / 2); ++x) {
                state = state * 1664525u + 1013904223u;
                f->data[p][y * f->linesize[p] + x] = static_cast<std::uint8_t>(state >> 24);
            }
    f->pts = 0;
    return f;
}

// The 4:2:0 planes the chain makes of the frame, swscale limited to
// cpu_flags (as av_force_cpu_flags takes them; -1: all the CPU has).
std::vector<std::uint8_t> converted_to_yuv420p(int cpu_flags) {
    av_force_cpu_flags(cpu_flags);
    const int w = 384;
    const int h = 216;
    FramePtr in = noisy_yuv422p(w, h);
    FilterChain chain(false, "video_size=384x216:pix_fmt=4:time_base=1/25:pixel_aspect=1/1", "format=pix_fmts=yuv420p");
    std::vector<FramePtr> out = chain.push(in.get());
    av_force_cpu_flags(-1);
    std::vector<std::uint8_t> planes;
    if (out.size() != 1 || out[0]->format != AV_PIX_FMT_YUV420P) return planes;
    for (int p = 0; p < 3; ++p)
        for (int y = 0; y < (p == 0 ? h : h / 2); ++y) {
            const std::uint8_t* row = out[0]->data[p] + y * out[0]->linesize[p];
            planes.insert(planes.end(), row, row + (p == 0 ? w : w / 2));
        }
    return planes;
}

TEST(FilterChain, AFormatConversionItInsertsIsTheSameWhateverTheCpuOffers) {
    static_assert(AV_PIX_FMT_YUV422P == 4, "the source arguments name the format by number");
    const std::vector<std::uint8_t> plain_c = converted_to_yuv420p(0);
    ASSERT_FALSE(plain_c.empty());
    EXPECT_TRUE(plain_c == converted_to_yuv420p(-1)) << "this CPU's SIMD against plain C";
}

}  // namespace
}  // namespace ladder::av
