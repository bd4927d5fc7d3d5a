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

TEST(RungRateFeedback, AnEncoderThatOvershootsIsAskedForLess) {
    RungRateFeedback f(1200);
    double made = 0;
    for (int i = 0; i < 5; ++i) encode(f, "libsvtav1", 1.18, 2.0, &made);
    // The first chunk is asked for the target (no history), the other four
    // for target / 1.18: 1416 + 4 x 1200 over five chunks.
    EXPECT_NEAR(made / 10.0 / 1000.0, (1416.0 + 4 * 1200.0) / 5, 2.0);
    EXPECT_NEAR(f.response("libsvtav1"), 1.18, 1e-9);
    EXPECT_EQ(f.begin("libsvtav1", 2.0).kbps, 1017);
}

TEST(RungRateFeedback, APriorStandsInUntilTheRungHasItsOwnMeasurement) {
    RungRateFeedback f(4500);
    EXPECT_FALSE(f.measured_response("libsvtav1"));
    // Many chunks of the rung start before any finishes: each is asked for
    // target / prior (the encoder's response on the other rungs).
    const auto a = f.begin("libsvtav1", 2.0, 1.1);
    const auto b = f.begin("libsvtav1", 2.0, 1.1);
    EXPECT_EQ(a.kbps, 4091);
    EXPECT_EQ(b.kbps, 4091);
    f.finish(a, 4091 * 1000.0 * 1.25 * 2.0);
    ASSERT_TRUE(f.measured_response("libsvtav1"));
    EXPECT_NEAR(*f.measured_response("libsvtav1"), 1.25, 1e-9);
    EXPECT_EQ(f.begin("libsvtav1", 2.0, 1.1).kbps, 3600) << "the rung's own response wins over the prior";
    EXPECT_EQ(f.begin("libsvtav1", 2.0, 9.0).kbps, 3600);
    RungRateFeedback g(1000);
    EXPECT_EQ(g.begin("libsvtav1", 2.0, 9.0).kbps, 500) << "a prior is clamped like a measurement";
}

TEST(RungRateFeedback, OneChunksContentIsNotMadeUpByTheNext) {
    RungRateFeedback f(1000);
    double made = 0;
    encode(f, "libsvtav1", 1.2, 2.0, &made);  // 20% over
    // Two chunks start together: both get target / response, neither tries
    // to win back the first chunk's bits; a failed attempt changes nothing.
    const auto a = f.begin("libsvtav1", 2.0);
    const auto b = f.begin("libsvtav1", 2.0);
    EXPECT_EQ(a.kbps, 833);
    EXPECT_EQ(b.kbps, 833);
    f.abandon(a);
    f.finish(b, 833 * 1000.0 * 1.0 * 2.0);  // the encoder now makes what it is asked for
    EXPECT_NEAR(f.response("libsvtav1"), (2400.0 + 1666.0) / (2000.0 + 1666.0), 1e-9);
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
