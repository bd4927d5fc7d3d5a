// A rung's bit rate stays on target across chunks made by fresh encoders.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/rung_rate_feedback.hpp"

namespace ladder::engine {
namespace {

// An encoder that makes `factor` times what it is asked for.
double encode(RungRateFeedback& f, const std::string& encoder, double factor, double seconds, double* made_total) {
    const auto req = f.begin(encoder, seconds);
    const double bits = req.kbps * 1000.0 * factor * seconds;
    f.finish(req, bits);
    *made_total += bits;
    return req.kbps;
}

TEST(RungRateFeedback, AsksForTheTargetBeforeAnyChunkIsDone) {
    RungRateFeedback f(1200);
    EXPECT_EQ(f.begin("libsvtav1", 2.0).kbps, 1200);
    EXPECT_DOUBLE_EQ(f.response("libsvtav1"), 1.0);
}

TEST(RungRateFeedback, AnEncoderThatOvershootsLandsTheRungOnTarget) {
    RungRateFeedback f(1200);
    double made = 0;
    for (int i = 0; i < 5; ++i) encode(f, "libsvtav1", 1.18, 2.0, &made);
    const double kbps = made / 10.0 / 1000.0;
    EXPECT_NEAR(kbps, 1200, 1200 * 0.01) << "five 2 s chunks of an encoder 18% over";
    EXPECT_NEAR(f.response("libsvtav1"), 1.18, 1e-9);
    // Without feedback the same encoder would make 1416 kb/s.
}

TEST(RungRateFeedback, ChunksInFlightAreCountedAtWhatTheyShouldMake) {
    RungRateFeedback f(1000);
    double made = 0;
    encode(f, "libsvtav1", 1.2, 2.0, &made);  // 2400 kbit: 400 over
    // Two chunks start together: the 400 kbit over is made up once, not twice.
    const auto a = f.begin("libsvtav1", 2.0);
    const auto b = f.begin("libsvtav1", 2.0);
    EXPECT_NEAR(a.kbps * 1.2 * 2.0, 2000 - 400, 2.0);
    EXPECT_NEAR(b.kbps * 1.2 * 2.0, 2000, 2.0);
    f.abandon(a);  // failed: it makes nothing and is not counted
    const auto c = f.begin("libsvtav1", 2.0);
    EXPECT_NEAR(c.kbps * 1.2 * 2.0, 2000 - 400, 2.0);
}

TEST(RungRateFeedback, EachEncoderKindHasItsOwnResponse) {
    RungRateFeedback f(1000);
    double made = 0;
    encode(f, "libsvtav1", 1.2, 2.0, &made);
    encode(f, "libaom-av1", 0.9, 2.0, &made);
    EXPECT_NEAR(f.response("libsvtav1"), 1.2, 1e-9);
    EXPECT_NEAR(f.response("libaom-av1"), 0.9, 1e-9);
}

TEST(RungRateFeedback, OneWildChunkCannotSwingTheRequestOutOfBounds) {
    RungRateFeedback f(600);
    double made = 0;
    encode(f, "libsvtav1", 10.0, 2.0, &made);  // ten times over
    EXPECT_GE(f.begin("libsvtav1", 2.0).kbps, 600 * 0.5 / 2.0 - 1);
    RungRateFeedback g(600);
    encode(g, "libsvtav1", 0.001, 2.0, &made);  // a black intro: almost nothing
    EXPECT_LE(g.begin("libsvtav1", 2.0).kbps, 600 * 1.5 / 0.5 + 1);
}

}  // namespace
}  // namespace ladder::engine
