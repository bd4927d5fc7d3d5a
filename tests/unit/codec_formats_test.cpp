// The pixel format an encoder is fed: its own list, read through the API of
// the FFmpeg version at hand (pix_fmts before 7.1, supported configs after).
#include <gtest/gtest.h>

#include <algorithm>

#include "av/codec_formats.hpp"

namespace ladder::av {
namespace {

TEST(CodecFormats, SvtAv1TakesPlanarYuvAsItIs) {
    const AVCodec* svt = avcodec_find_encoder_by_name("libsvtav1");
    ASSERT_NE(svt, nullptr) << "ladder's default encoder is in every supported FFmpeg build";
    const auto formats = supported_pixel_formats(svt);
    EXPECT_NE(std::find(formats.begin(), formats.end(), AV_PIX_FMT_YUV420P), formats.end());
    EXPECT_NE(std::find(formats.begin(), formats.end(), AV_PIX_FMT_YUV420P10LE), formats.end());
    EXPECT_EQ(closest_pixel_format(svt, AV_PIX_FMT_YUV420P), AV_PIX_FMT_YUV420P);
    EXPECT_EQ(closest_pixel_format(svt, AV_PIX_FMT_YUV420P10LE), AV_PIX_FMT_YUV420P10LE);
}

TEST(CodecFormats, QuickSyncEncodersGetSemiPlanarFrames) {
    // h264_qsv lists the same formats as av1_qsv (NV12, P010, QSV surfaces)
    // and is in FFmpeg builds that predate av1_qsv.
    const AVCodec* qsv = avcodec_find_encoder_by_name("av1_qsv");
    if (!qsv) qsv = avcodec_find_encoder_by_name("h264_qsv");
    if (!qsv) GTEST_SKIP() << "this FFmpeg build has no Quick Sync encoder";
    EXPECT_EQ(closest_pixel_format(qsv, AV_PIX_FMT_YUV420P), AV_PIX_FMT_NV12);
    EXPECT_EQ(closest_pixel_format(qsv, AV_PIX_FMT_YUV420P10LE), AV_PIX_FMT_P010LE);
}

}  // namespace
}  // namespace ladder::av
