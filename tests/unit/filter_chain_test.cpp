// av::FilterChain: the scale filters a graph inserts to convert formats
// round the same on every CPU (av/bitexact_scaling.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "av/av_error.hpp"
#include "av/filter_chain.hpp"
#include "av/handles.hpp"
#include "noise_planes.hpp"

namespace ladder::av {
namespace {

// The 4:2:0 samples the chain makes of a 4:2:2 frame of noise (its
// chroma filtered by an inserted converter), the CPU's own code limited to
// cpu_flags (test::ForcedCpuFlags).
std::vector<std::uint8_t> converted_to_yuv420p(int cpu_flags) {
    const test::ForcedCpuFlags forced(cpu_flags);
    FramePtr in = make_frame();
    in->width = 384;
    in->height = 216;
    in->format = AV_PIX_FMT_YUV422P;
    check(av_frame_get_buffer(in.get(), 0), "alloc");
    test::fill_with_noise(in.get(), 777);
    in->pts = 0;
    FilterChain chain(false, "video_size=384x216:pix_fmt=4:time_base=1/25:pixel_aspect=1/1", "format=pix_fmts=yuv420p");
    std::vector<FramePtr> out = chain.push(in.get());
    if (out.size() != 1 || out[0]->format != AV_PIX_FMT_YUV420P) return {};
    return test::samples_of(out[0].get());
}

TEST(FilterChain, AFormatConversionItInsertsIsTheSameWhateverTheCpuOffers) {
    static_assert(AV_PIX_FMT_YUV422P == 4, "the source arguments name the format by number");
    const std::vector<std::uint8_t> plain_c = converted_to_yuv420p(0);
    ASSERT_FALSE(plain_c.empty());
    EXPECT_TRUE(plain_c == converted_to_yuv420p(-1)) << "this CPU's SIMD against plain C";
}

}  // namespace
}  // namespace ladder::av
