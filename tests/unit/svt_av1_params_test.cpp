// SVT-AV1's version as the library says it, and the CRF sessions' params
// that depend on it.
#include <gtest/gtest.h>

#include "engine/encode/backend/svt_av1_params.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace ladder::engine {
namespace {

TEST(SvtAv1Params, TheMajorVersionIsReadFromTheLibrarysText) {
    EXPECT_EQ(svt_av1_major_of("v2.3.0"), 2);
    EXPECT_EQ(svt_av1_major_of("1.4.1"), 1);
    EXPECT_EQ(svt_av1_major_of("v3.0.0-rc1"), 3);
    EXPECT_EQ(svt_av1_major_of("v10"), 10);
    EXPECT_EQ(svt_av1_major_of(""), 0);
    EXPECT_EQ(svt_av1_major_of("v"), 0);
    EXPECT_EQ(svt_av1_major_of("unknown"), 0);
    EXPECT_EQ(svt_av1_major_of("2x"), 0);
}

TEST(SvtAv1Params, ConstantQualitySaysItsMiniGopByVersion) {
    EXPECT_EQ(svt_av1_crf_params(0), "") << "a library that does not say its version is left alone";
    EXPECT_EQ(svt_av1_crf_params(1), ":hierarchical-levels=4");
    EXPECT_EQ(svt_av1_crf_params(2), ":hierarchical-levels=3");
    EXPECT_EQ(svt_av1_crf_params(3), ":hierarchical-levels=3");
}

// Where libavcodec has libsvtav1, the library it runs on says its version
// (1 on Debian 12, 2 on Debian 13).
TEST(SvtAv1Params, TheLoadedLibrarysVersionIsFound) {
    ASSERT_NE(avcodec_find_encoder_by_name("libsvtav1"), nullptr) << "ladder needs an FFmpeg with libsvtav1";
    EXPECT_GE(loaded_svt_av1_major(), 1);
}

}  // namespace
}  // namespace ladder::engine
