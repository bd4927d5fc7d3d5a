// mux/bmff_boxes: what `ladder validate` reads of init segments and
// fragments by walking their boxes (the track's timescale and edit list, the
// colr boxes, a fragment's decode time), on boxes built here byte by byte.
#include "mux/bmff_boxes.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ladder::test {
namespace {

using Bytes = std::vector<std::uint8_t>;

// value in bytes big-endian bytes (at most 8).
Bytes be(std::uint64_t value, int bytes) {
    Bytes out;
    for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    return out;
}

Bytes cat(std::initializer_list<Bytes> parts) {
    Bytes out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

Bytes box(const std::string& type, const Bytes& payload) {
    return cat({be(8 + payload.size(), 4), Bytes(type.begin(), type.end()), payload});
}

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes nclx(int primaries, int transfer, int matrix, bool full) {
    return box("colr", cat({text("nclx"), be(primaries, 2), be(transfer, 2), be(matrix, 2), be(full ? 0x80 : 0, 1)}));
}

// An init segment: mdhd (version 0 or 1) and one av01 sample entry with
// the given boxes after its 78 bytes of visual sample entry fields.
Bytes init_segment(int mdhd_version, std::uint32_t timescale, const Bytes& sample_entry_boxes) {
    const Bytes mdhd = mdhd_version == 0 ? box("mdhd", cat({be(0, 4), be(0, 4), be(0, 4), be(timescale, 4), be(0, 8)}))
                                         : box("mdhd", cat({be(1 << 24, 4), be(0, 8), be(0, 8), be(timescale, 4),
                                                            Bytes(12, 0)}));
    const Bytes entry = box("av01", cat({Bytes(78, 0), sample_entry_boxes}));
    const Bytes stsd = box("stsd", cat({be(0, 4), be(1, 4), entry}));
    const Bytes minf = box("minf", box("stbl", stsd));
    return cat({box("ftyp", text("iso6")), box("moov", box("trak", box("mdia", cat({mdhd, minf}))))});
}

TEST(BmffBoxes, ReadsTheTrackTimescaleOfBothMdhdVersions) {
    const auto v0 = mux::read_track_timing(init_segment(0, 12800, {}));
    ASSERT_TRUE(v0);
    EXPECT_EQ(v0->timescale, 12800u);
    EXPECT_FALSE(v0->has_edit_list);
    EXPECT_EQ(v0->media_time_at_zero, 0);
    const auto v1 = mux::read_track_timing(init_segment(1, 48000, {}));
    ASSERT_TRUE(v1);
    EXPECT_EQ(v1->timescale, 48000u);
    EXPECT_EQ(mux::read_track_timing(box("moov", {})), std::nullopt);
    EXPECT_EQ(mux::read_track_timing(init_segment(0, 0, {})), std::nullopt);
}

// An audio init segment: mvhd (movie timescale 1000), tkhd, an edit list of
// the given elst payload, mdhd at 48 kHz.
Bytes init_with_elst(const Bytes& elst_payload) {
    const Bytes mvhd = box("mvhd", cat({be(0, 4), be(0, 4), be(0, 4), be(1000, 4), be(0, 4)}));
    const Bytes tkhd = box("tkhd", Bytes(84, 0));
    const Bytes edts = box("edts", box("elst", elst_payload));
    const Bytes mdhd = box("mdhd", cat({be(0, 4), be(0, 4), be(0, 4), be(48000, 4), be(0, 8)}));
    return cat({box("ftyp", text("iso6")), box("moov", cat({mvhd, box("trak", cat({tkhd, edts, box("mdia", mdhd)}))}))});
}

TEST(BmffBoxes, ReadsWhereAnEditListStartsTheMedia) {
    // One edit from media time 1024 (the AAC priming), version 0 and 1.
    const auto v0 = mux::read_track_timing(init_with_elst(cat({be(0, 4), be(1, 4), be(0, 4), be(1024, 4), be(0x10000, 4)})));
    ASSERT_TRUE(v0);
    EXPECT_TRUE(v0->has_edit_list);
    EXPECT_EQ(v0->media_time_at_zero, 1024);
    const auto v1 = mux::read_track_timing(
        init_with_elst(cat({be(1 << 24, 4), be(1, 4), be(0, 8), be(1ULL << 33, 8), be(0x10000, 4)})));
    ASSERT_TRUE(v1);
    EXPECT_EQ(v1->media_time_at_zero, std::int64_t(1) << 33);
    // An empty edit of 500 ms (movie timescale) first: the media starts 24000 samples later.
    const auto delayed = mux::read_track_timing(init_with_elst(
        cat({be(0, 4), be(2, 4), be(500, 4), be(0xffffffff, 4), be(0x10000, 4), be(0, 4), be(0, 4), be(0x10000, 4)})));
    ASSERT_TRUE(delayed);
    EXPECT_EQ(delayed->media_time_at_zero, -24000);
    // An empty edit no 64-bit media time can be shifted by, and empty edits
    // whose durations add up beyond 64 bits.
    EXPECT_EQ(mux::read_track_timing(init_with_elst(cat({be(1 << 24, 4), be(2, 4), be(~0ULL, 8), be(~0ULL, 8),
                                                          be(0x10000, 4), be(0, 8), be(0, 8), be(0x10000, 4)}))),
              std::nullopt);
    EXPECT_EQ(mux::read_track_timing(init_with_elst(cat({be(1 << 24, 4), be(3, 4), be(1ULL << 63, 8), be(~0ULL, 8),
                                                          be(0x10000, 4), be(1ULL << 63, 8), be(~0ULL, 8),
                                                          be(0x10000, 4), be(0, 8), be(0, 8), be(0x10000, 4)}))),
              std::nullopt);
    // A media time at the bottom of 64 bits, after an empty edit.
    EXPECT_EQ(mux::read_track_timing(init_with_elst(cat({be(1 << 24, 4), be(2, 4), be(1000, 8), be(~0ULL, 8),
                                                          be(0x10000, 4), be(0, 8), be(1ULL << 63, 8),
                                                          be(0x10000, 4)}))),
              std::nullopt);
    // More entries claimed than the box holds.
    EXPECT_EQ(mux::read_track_timing(init_with_elst(cat({be(0, 4), be(0xffffffff, 4), be(0, 4), be(1024, 4)}))),
              std::nullopt);
}

// Read back what with_edit_list puts in.
TEST(BmffBoxes, ReadsBackTheEditListItWrites) {
    const Bytes tkhd = box("tkhd", Bytes(84, 0));
    const Bytes mdhd = box("mdhd", cat({be(0, 4), be(0, 4), be(0, 4), be(44100, 4), be(0, 8)}));
    const Bytes mvhd = box("mvhd", cat({be(0, 4), be(0, 4), be(0, 4), be(1000, 4), be(0, 4)}));
    const Bytes init =
        cat({box("ftyp", text("iso6")), box("moov", cat({mvhd, box("trak", cat({tkhd, box("mdia", mdhd)}))}))});
    const auto timing = mux::read_track_timing(mux::with_edit_list(init, 1024));
    ASSERT_TRUE(timing);
    EXPECT_EQ(timing->timescale, 44100u);
    EXPECT_TRUE(timing->has_edit_list);
    EXPECT_EQ(timing->media_time_at_zero, 1024);
}

TEST(BmffBoxes, ReadsEveryNclxAndNclcColrBox) {
    const Bytes nclc = box("colr", cat({text("nclc"), be(9, 2), be(16, 2), be(9, 2)}));
    const Bytes icc = box("colr", cat({text("prof"), Bytes(16, 0)}));
    const auto boxes = mux::read_colour_boxes(
        init_segment(0, 1, cat({box("av1C", Bytes(8, 0)), nclx(6, 6, 6, true), nclc, icc, box("pasp", Bytes(8, 0))})));
    ASSERT_EQ(boxes.size(), 2u);
    EXPECT_EQ(boxes[0].type, "nclx");
    EXPECT_EQ(boxes[0].primaries, 6);
    EXPECT_EQ(boxes[0].transfer, 6);
    EXPECT_EQ(boxes[0].matrix, 6);
    EXPECT_EQ(boxes[0].full_range, true);
    EXPECT_EQ(boxes[1].type, "nclc");
    EXPECT_EQ(boxes[1].transfer, 16);
    EXPECT_EQ(boxes[1].full_range, std::nullopt);
}

TEST(BmffBoxes, ReadsNoColrBoxFromTruncatedBytes) {
    const Bytes whole = init_segment(0, 1, nclx(1, 1, 1, false));
    for (std::size_t size = 0; size < whole.size(); ++size)
        EXPECT_TRUE(mux::read_colour_boxes(Bytes(whole.begin(), whole.begin() + static_cast<long>(size))).empty())
            << size;
    EXPECT_EQ(mux::read_colour_boxes(whole).size(), 1u);
}

// A fragment: tfhd (default-base-is-moof), tfdt, a trun of two samples.
Bytes fragment(const Bytes& tfdt) {
    const Bytes tfhd = box("tfhd", cat({be(0x020000, 4), be(1, 4)}));
    const Bytes trun = box("trun", cat({be(0x000301, 4), be(2, 4), be(0, 4), be(512, 4), be(10, 4), be(512, 4),
                                        be(10, 4)}));
    return cat({box("moof", box("traf", cat({tfhd, tfdt, trun}))), box("mdat", Bytes(20, 0))});
}

TEST(BmffBoxes, ReadsAFragmentsDecodeTime) {
    const auto v0 = mux::read_fragment_layout(fragment(box("tfdt", cat({be(0, 4), be(12800, 4)}))));
    ASSERT_TRUE(v0);
    EXPECT_EQ(v0->decode_time, 12800u);
    EXPECT_EQ(v0->duration, 1024u);
    const auto v1 = mux::read_fragment_layout(fragment(box("tfdt", cat({be(1 << 24, 4), be(1ULL << 40, 8)}))));
    ASSERT_TRUE(v1);
    EXPECT_EQ(v1->decode_time, 1ULL << 40);
    const auto none = mux::read_fragment_layout(fragment({}));
    ASSERT_TRUE(none);
    EXPECT_EQ(none->decode_time, std::nullopt);
}

}  // namespace
}  // namespace ladder::test
