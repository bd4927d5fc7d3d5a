// Each encoder's limits as its library checks them when it opens: a rung
// outside them is a problem named with the limit, and a session's request
// (its share of the rung's rate) never leaves them.
#include <gtest/gtest.h>

#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/rung/rung_rate_feedback.hpp"

namespace ladder::engine {
namespace {

RungSpec rung(int width, int height, int kbps, int maxrate = 0, int bufsize = 0) {
    return RungSpec{"r", width, height, kbps, maxrate, bufsize};
}

const gpu::EncoderTraits& traits(const std::string& encoder) { return gpu::encoder_traits(encoder); }

bool fits(const std::string& encoder, const RungSpec& r) { return encoder_rung_problem(traits(encoder), r).empty(); }

TEST(EncoderLimits, SvtAv1Sizes) {
    EXPECT_TRUE(fits("libsvtav1", rung(64, 64, 100)));
    EXPECT_EQ(encoder_rung_problem(traits("libsvtav1"), rung(80, 60, 100)),
              "80x60 is below SVT-AV1's minimum of 64x64 (libsvtav1)");
    EXPECT_TRUE(fits("libsvtav1", rung(8192, 8192, 100)));
    EXPECT_FALSE(fits("libsvtav1", rung(16386, 64, 100)));
    EXPECT_TRUE(fits("libaom-av1", rung(16, 16, 100))) << "libaom takes what ladder's rungs can be";
}

TEST(EncoderLimits, SvtAv1TakesUpTo100000KbPerSecondAndAnyMaxRate) {
    EXPECT_TRUE(fits("libsvtav1", rung(320, 180, 100000)));
    EXPECT_EQ(encoder_rung_problem(traits("libsvtav1"), rung(320, 180, 100001)),
              "100001 kb/s is above SVT-AV1's maximum of 100000 kb/s (libsvtav1)");
    EXPECT_TRUE(fits("libsvtav1", rung(320, 180, 1000, 500000))) << "SVT-AV1 runs plain VBR: no max rate";
    EXPECT_TRUE(fits("libaom-av1", rung(320, 180, 200000)));
    EXPECT_TRUE(fits("av1_nvenc", rung(320, 180, 200000, 4294967)));
    EXPECT_EQ(encoder_rung_problem(traits("av1_nvenc"), rung(320, 180, 200000, 4294968)),
              "maxrate_kbps 4294968 is above NVENC's maximum of 4294967 kb/s (av1_nvenc)");
}

TEST(EncoderLimits, SvtAv1TakesABufferOf20To10000Milliseconds) {
    EXPECT_TRUE(fits("libsvtav1", rung(320, 180, 1000, 0, 20)));
    EXPECT_TRUE(fits("libsvtav1", rung(320, 180, 1000, 0, 10000)));
    EXPECT_EQ(encoder_rung_problem(traits("libsvtav1"), rung(320, 180, 1000, 0, 19)),
              "bufsize_kbps 19 is 19 ms of its 1000 kb/s; SVT-AV1 takes a buffer of 20 to 10000 ms of the rate "
              "(20 to 10000 kb here) (libsvtav1)");
    EXPECT_FALSE(fits("libsvtav1", rung(320, 180, 1000, 0, 10001)));
    EXPECT_TRUE(fits("libaom-av1", rung(320, 180, 1000, 0, 10001)));
    EXPECT_EQ(encoder_rung_problem(traits("libaom-av1"), rung(320, 180, 1000, 0, 3000000)),
              "bufsize_kbps 3000000 is above FFmpeg's maximum of 2147483 kb (libaom-av1)");
}

EncoderSettings session(int kbps, int maxrate = 0, int bufsize = 0) {
    EncoderSettings s;
    s.bitrate_kbps = kbps;
    s.maxrate_kbps = maxrate;
    s.bufsize_kbps = bufsize;
    return s;
}

TEST(EncoderLimits, ASessionIsAskedForNoMoreThanTheEncoderTakes) {
    // The rung at 100000 kb/s, the session's share at 140845 (issue 41).
    const RateControl svt = rate_control(traits("libsvtav1"), session(140845));
    EXPECT_EQ(svt.bit_rate, 100'000'000);
    EXPECT_EQ(svt.max_rate, 0) << "SVT-AV1 is given no max rate";
    EXPECT_EQ(svt.buffer_bits, 200'000'000);
    // The rung's buffer kept within 20..10000 ms of the session's rate.
    EXPECT_EQ(rate_control(traits("libsvtav1"), session(50000, 0, 100)).buffer_bits, 1'000'000);
    EXPECT_EQ(rate_control(traits("libsvtav1"), session(100, 0, 5000)).buffer_bits, 1'000'000);
    EXPECT_EQ(rate_control(traits("libsvtav1"), session(1000, 0, 1500)).buffer_bits, 1'500'000);

    const RateControl aom = rate_control(traits("libaom-av1"), session(1000));
    EXPECT_EQ(aom.bit_rate, 1'000'000);
    EXPECT_EQ(aom.max_rate, 1'500'000);
    EXPECT_EQ(aom.buffer_bits, 2'000'000);
    EXPECT_EQ(rate_control(traits("libaom-av1"), session(1000, 1200, 900)).max_rate, 1'200'000);
    EXPECT_EQ(rate_control(traits("libaom-av1"), session(1'050'000)).buffer_bits, 2'100'000'000) << "within an int";
    EXPECT_EQ(rate_control(traits("libaom-av1"), session(1'100'000)).buffer_bits, 2'147'483'647);
}

TEST(EncoderLimits, RateFeedbackAsksForNoMoreThanTheLimit) {
    RungRateFeedback f(100000);
    const RungRateFeedback::Response svt{0.71, 0.71};
    EXPECT_EQ(f.begin("libsvtav1", 1, 2.0, svt).kbps, 140845);
    const auto capped = f.begin("libsvtav1", 1, 2.0, svt, 1.0, 1.0, 100000);
    EXPECT_EQ(capped.kbps, 100000);
    // It made what it was asked for: the rung's next session is not pushed
    // further up for what the limit kept the first from making.
    f.finish(capped, {100000 * 1000.0 * 0.71 * 2.0, 2.0}, {});
    EXPECT_EQ(f.begin("libsvtav1", 1, 2.0, svt, 1.0, 1.0, 100000).kbps, 100000);
}

}  // namespace
}  // namespace ladder::engine

namespace ladder::engine {
namespace {

TEST(EncoderLimits, AConstantQualityRungNeedsAnEncoderThatTakesACrf) {
    RungSpec r = rung(320, 180, 600);
    r.crf = 35;
    EXPECT_TRUE(fits("libsvtav1", r));
    EXPECT_EQ(encoder_rung_problem(traits("libaom-av1"), r),
              "crf 35 needs an encoder that takes a constant quality (SVT-AV1); libaom encodes to a rate: leave "
              "\"crf\" out or encode this rung on the CPU with SVT-AV1 (libaom-av1)");
    EXPECT_FALSE(fits("av1_nvenc", r));
    EXPECT_FALSE(fits("av1_qsv", r));
}

}  // namespace
}  // namespace ladder::engine
