// The AV1 CODECS string (AV1-ISOBMFF §5 "Codecs Parameter String"), on hand
// made sequence headers with known answers and on real SVT-AV1 headers.
#include "mux/av1_codecs_string.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "av1_test_encoder.hpp"
#include "mux/av1_sequence_header.hpp"

namespace mux = ladder::mux;
using ladder::test::Av1EncodeOptions;
using ladder::test::encode_av1;

namespace {

// What dav1d reports for a plain 8-bit 4:2:0 stream without a color
// description: AV1's "unspecified" (2) for the three color codes.
Dav1dSequenceHeader base_header(int major_level = 4, int minor_level = 0) {
    Dav1dSequenceHeader h{};
    h.profile = 0;
    h.num_operating_points = 1;
    h.operating_points[0].major_level = major_level;
    h.operating_points[0].minor_level = minor_level;
    h.operating_points[0].tier = 0;
    h.hbd = 0;
    h.monochrome = 0;
    h.ss_hor = 1;
    h.ss_ver = 1;
    h.chr = DAV1D_CHR_UNKNOWN;
    h.layout = DAV1D_PIXEL_LAYOUT_I420;
    h.color_description_present = 0;
    h.pri = DAV1D_COLOR_PRI_UNKNOWN;
    h.trc = DAV1D_TRC_UNKNOWN;
    h.mtrx = DAV1D_MC_UNKNOWN;
    h.color_range = 0;
    h.max_width = 1920;
    h.max_height = 1080;
    return h;
}

void describe_color(Dav1dSequenceHeader& h, Dav1dColorPrimaries pri, Dav1dTransferCharacteristics trc,
                    Dav1dMatrixCoefficients mtrx) {
    h.color_description_present = 1;
    h.pri = pri;
    h.trc = trc;
    h.mtrx = mtrx;
}

}  // namespace

// ---------------------------------------------------------------- hand made

TEST(Av1CodecsString, Sdr1080pBt709LimitedIsTheShortForm) {
    auto h = base_header(4, 0);  // level 4.0 -> seq_level_idx 8
    describe_color(h, DAV1D_COLOR_PRI_BT709, DAV1D_TRC_BT709, DAV1D_MC_BT709);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08");
}

TEST(Av1CodecsString, NoColorDescriptionUsesTheSpecDefaultsNotUnspecified) {
    // AV1-ISOBMFF: with color_description_present_flag 0 the string SHOULD
    // carry the defaults 01.01.01 (BT.709), whatever dav1d reports (2/2/2).
    const auto h = base_header(4, 0);
    ASSERT_EQ(h.pri, DAV1D_COLOR_PRI_UNKNOWN);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08");
}

TEST(Av1CodecsString, ExplicitlyCodedUnspecifiedColorIsKept) {
    // The spec's way to avoid being read as BT.709: code 2/2/2 explicitly.
    auto h = base_header(4, 0);
    describe_color(h, DAV1D_COLOR_PRI_UNKNOWN, DAV1D_TRC_UNKNOWN, DAV1D_MC_UNKNOWN);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08.0.110.02.02.02.0");
}

TEST(Av1CodecsString, Hdr10TheSpecExample) {
    auto h = base_header(3, 0);  // level 3.0 -> 4
    h.hbd = 1;                   // 10 bit
    h.chr = DAV1D_CHR_COLOCATED;
    describe_color(h, DAV1D_COLOR_PRI_BT2020, DAV1D_TRC_SMPTE2084, DAV1D_MC_BT2020_NCL);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.04M.10.0.112.09.16.09.0");
}

TEST(Av1CodecsString, VerticalChromaPosition) {
    auto h = base_header(4, 0);
    h.chr = DAV1D_CHR_VERTICAL;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08.0.111.01.01.01.0");
}

TEST(Av1CodecsString, ChromaPositionWithoutDescriptionStillGivesTheLongForm) {
    auto h = base_header(4, 0);
    h.chr = DAV1D_CHR_COLOCATED;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08.0.112.01.01.01.0");
}

TEST(Av1CodecsString, Monochrome) {
    // AV1 §5.5.2: mono_chrome implies subsampling 1/1 and an unknown position.
    auto h = base_header(4, 0);
    h.monochrome = 1;
    h.layout = DAV1D_PIXEL_LAYOUT_I400;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08.1.110.01.01.01.0");
    h.color_range = 1;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08.1.110.01.01.01.1");
}

TEST(Av1CodecsString, FullRange) {
    auto h = base_header(4, 0);
    describe_color(h, DAV1D_COLOR_PRI_BT709, DAV1D_TRC_BT709, DAV1D_MC_BT709);
    h.color_range = 1;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08.0.110.01.01.01.1");
}

TEST(Av1CodecsString, TwelveBitProfessional422) {
    auto h = base_header(5, 1);  // level 5.1 -> 13
    h.profile = 2;
    h.hbd = 2;  // 12 bit
    h.ss_hor = 1;
    h.ss_ver = 0;
    h.layout = DAV1D_PIXEL_LAYOUT_I422;
    h.chr = DAV1D_CHR_COLOCATED;  // not 4:2:0: the third digit must be 0 anyway
    describe_color(h, DAV1D_COLOR_PRI_BT2020, DAV1D_TRC_HLG, DAV1D_MC_BT2020_NCL);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.2.13M.12.0.100.09.18.09.0");
}

TEST(Av1CodecsString, TwelveBitProfessional444Rgb) {
    auto h = base_header(6, 0);  // level 6.0 -> 16
    h.profile = 2;
    h.hbd = 2;
    h.ss_hor = 0;
    h.ss_ver = 0;
    h.layout = DAV1D_PIXEL_LAYOUT_I444;
    describe_color(h, DAV1D_COLOR_PRI_BT709, DAV1D_TRC_SRGB, DAV1D_MC_IDENTITY);
    h.color_range = 1;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.2.16M.12.0.000.01.13.00.1");
}

TEST(Av1CodecsString, HighProfile444EightBit) {
    auto h = base_header(4, 1);  // 4.1 -> 9
    h.profile = 1;
    h.ss_hor = 0;
    h.ss_ver = 0;
    h.layout = DAV1D_PIXEL_LAYOUT_I444;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.1.09M.08.0.000.01.01.01.0");
}

TEST(Av1CodecsString, Level31Unconstrained) {
    // seq_level_idx 31: dav1d splits it as 2 + (31 >> 2) = 9, 31 & 3 = 3.
    auto h = base_header(9, 3);
    ASSERT_EQ(mux::seq_level_idx(h), 31);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.31M.08");
}

TEST(Av1CodecsString, HighTier) {
    auto h = base_header(5, 1);
    h.operating_points[0].tier = 1;
    h.hbd = 1;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.13H.10");
}

TEST(Av1CodecsString, OnlyOperatingPointZeroCounts) {
    auto h = base_header(4, 0);
    h.num_operating_points = 2;
    h.operating_points[1].major_level = 6;
    h.operating_points[1].tier = 1;
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.08M.08");
}

// ---------------------------------------------------------------- real SVT-AV1 headers

namespace {

#define REQUIRE_SVT()                                                                                   \
    do {                                                                                                \
        if (!avcodec_find_encoder_by_name("libsvtav1")) GTEST_SKIP() << "libsvtav1 is not in this FFmpeg build"; \
    } while (0)

Dav1dSequenceHeader svt_header(const Av1EncodeOptions& options) {
    const auto sample = encode_av1("libsvtav1", 160, 120, options);
    auto h = mux::parse_sequence_header(sample.first_packet);
    if (!h) throw std::runtime_error("no sequence header in SVT-AV1's first packet");
    return *h;
}

Av1EncodeOptions color(AVColorPrimaries p, AVColorTransferCharacteristic t, AVColorSpace m, AVColorRange r) {
    Av1EncodeOptions o;
    o.primaries = p;
    o.transfer = t;
    o.matrix = m;
    o.range = r;
    return o;
}

}  // namespace

TEST(Av1CodecsStringReal, SvtBt709Limited) {
    REQUIRE_SVT();
    const auto h = svt_header(color(AVCOL_PRI_BT709, AVCOL_TRC_BT709, AVCOL_SPC_BT709, AVCOL_RANGE_MPEG));
    // What SVT-AV1 signals at 160x120: level 2.0, a color description of
    // 1/1/1, limited range, and no chroma sample position (unknown).
    EXPECT_EQ(mux::seq_level_idx(h), 0);
    EXPECT_EQ(h.color_description_present, 1);
    EXPECT_EQ(h.pri, DAV1D_COLOR_PRI_BT709);
    EXPECT_EQ(h.trc, DAV1D_TRC_BT709);
    EXPECT_EQ(h.mtrx, DAV1D_MC_BT709);
    EXPECT_EQ(h.color_range, 0);
    EXPECT_EQ(h.chr, DAV1D_CHR_UNKNOWN);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.00M.08");
}

TEST(Av1CodecsStringReal, SvtUnspecifiedColor) {
    REQUIRE_SVT();
    const auto h = svt_header(Av1EncodeOptions{});
    // SVT-AV1 writes color_description_present_flag = 0 for unspecified
    // color, so dav1d reports 2/2/2 and the string takes the spec defaults
    // 01.01.01: with limited range and an unknown chroma position the whole
    // tail is the default one and is omitted. The string cannot tell this
    // stream from a BT.709 one; only a colr box could.
    EXPECT_EQ(h.color_description_present, 0);
    EXPECT_EQ(h.pri, DAV1D_COLOR_PRI_UNKNOWN);
    EXPECT_EQ(h.color_range, 0);
    EXPECT_EQ(h.chr, DAV1D_CHR_UNKNOWN);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.00M.08");
}

TEST(Av1CodecsStringReal, SvtUnspecifiedColorFullRange) {
    REQUIRE_SVT();
    const auto h = svt_header(
        color(AVCOL_PRI_UNSPECIFIED, AVCOL_TRC_UNSPECIFIED, AVCOL_SPC_UNSPECIFIED, AVCOL_RANGE_JPEG));
    EXPECT_EQ(h.color_description_present, 0);
    EXPECT_EQ(h.color_range, 1);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.00M.08.0.110.01.01.01.1");
}

TEST(Av1CodecsStringReal, SvtBt2020Pq) {
    REQUIRE_SVT();
    const auto h = svt_header(color(AVCOL_PRI_BT2020, AVCOL_TRC_SMPTE2084, AVCOL_SPC_BT2020_NCL, AVCOL_RANGE_MPEG));
    EXPECT_EQ(h.color_description_present, 1);
    EXPECT_EQ(mux::av1_codecs_string(h), "av01.0.00M.08.0.110.09.16.09.0");
}
