// `ladder validate` on copies of a valid ladder edited the ways it once
// missed (issue #40, point 6): each must be named, and nothing outside the
// ladder opened.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "tests/open_watch.hpp"
#include "validate_fixture.hpp"

namespace ladder::test {
namespace {

// Issue #40, point 6: edits of a valid ladder that validate once passed.
class ValidateMisses : public ValidateUris {
protected:
    static void expect_problem(const ProcessResult& r, const std::string& line) {
        EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\nnot in:\n" << r.out << r.err;
    }

    static std::string read_bytes(const fs::path& file) {
        std::ifstream in(file, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), {}};
    }

    static void write_bytes(const fs::path& file, const std::string& bytes) {
        std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    }

    // An init segment's colr nclx box: primaries, transfer, matrix (16
    // bits each) and the full-range bit, read and written in its bytes.
    struct Nclx {
        int primaries = 0, transfer = 0, matrix = 0;
        bool full_range = false;
    };

    static std::size_t nclx_at(const std::string& bytes) {
        const auto at = bytes.find("colrnclx");
        EXPECT_NE(at, std::string::npos);
        return at + 8;
    }

    static Nclx read_nclx(const fs::path& init) {
        const std::string bytes = read_bytes(init);
        const std::size_t at = nclx_at(bytes);
        const auto u16 = [&](std::size_t i) {
            return (static_cast<unsigned char>(bytes[i]) << 8) | static_cast<unsigned char>(bytes[i + 1]);
        };
        return {u16(at), u16(at + 2), u16(at + 4), (bytes[at + 6] & 0x80) != 0};
    }

    static void write_nclx(const fs::path& init, const Nclx& c) {
        std::string bytes = read_bytes(init);
        const std::size_t at = nclx_at(bytes);
        const int values[] = {c.primaries, c.transfer, c.matrix};
        for (int i = 0; i < 3; ++i) {
            bytes[at + 2 * i] = static_cast<char>(values[i] >> 8);
            bytes[at + 2 * i + 1] = static_cast<char>(values[i] & 0xff);
        }
        bytes[at + 6] = static_cast<char>(c.full_range ? 0x80 : 0);
        write_bytes(init, bytes);
    }

    // The rung's CODECS value in the master playlist (av01 and its tail).
    static std::string codecs_of(const fs::path& dir, const std::string& rung) {
        const std::string master = read_text(dir / "master.m3u8");
        std::smatch m;
        const std::regex re("CODECS=\"(av01[^,\"]*)[^\\n]*\\n" + rung + "/index.m3u8");
        EXPECT_TRUE(std::regex_search(master, m, re)) << master;
        return m[1];
    }

    // The same codecs string with another colour description in its tail
    // (the full-range digit flipped, or the tail added to a short one).
    static std::string with_another_tail(const std::string& codecs) {
        if (std::count(codecs.begin(), codecs.end(), '.') < 9) return codecs + ".0.110.01.01.01.1";
        std::string other = codecs;
        other.back() = other.back() == '0' ? '1' : '0';
        return other;
    }
};

TEST_F(ValidateMisses, NamesAColrBoxThatDisagreesWithTheSequenceHeader) {
    const fs::path d = copy_of_good("validate-colr");
    // The issue's 1/1/1 (9/16/9 where the ladder is BT.709 already).
    const bool bt709 = read_nclx(d / "240p/init.mp4").primaries == 1;
    write_nclx(d / "240p/init.mp4", bt709 ? Nclx{9, 16, 9, false} : Nclx{1, 1, 1, false});
    expect_problem(validate(d), bt709 ? "240p/init.mp4: its colr box (nclx) says primaries 9, transfer 16, matrix 9, "
                                        "limited range but av1C's sequence header says primaries 1"
                                      : "240p/init.mp4: its colr box (nclx) says primaries 1, transfer 1, matrix 1, "
                                        "limited range but av1C's sequence header says primaries ");

    const fs::path range = copy_of_good("validate-colr-range");
    Nclx flipped = read_nclx(range / "120p/init.mp4");
    flipped.full_range = !flipped.full_range;
    write_nclx(range / "120p/init.mp4", flipped);
    const auto words = [](const Nclx& c) {
        return "primaries " + std::to_string(c.primaries) + ", transfer " + std::to_string(c.transfer) + ", matrix " +
               std::to_string(c.matrix) + (c.full_range ? ", full range" : ", limited range");
    };
    Nclx before = flipped;
    before.full_range = !flipped.full_range;
    expect_problem(validate(range), "120p/init.mp4: its colr box (nclx) says " + words(flipped) +
                                        " but av1C's sequence header says " + words(before));
}

TEST_F(ValidateMisses, NamesCodecsTailsAndColourAttributesThatDisagreeWithAv1C) {
    const std::string real = codecs_of(good_, "240p");
    const std::string other = with_another_tail(real);
    struct Case {
        std::string name, file, from, to, expected;
    };
    const std::vector<Case> cases{
        {"variant", "master.m3u8", "CODECS=\"" + real + ",mp4a.40.2\",RESOLUTION=320x240",
         "CODECS=\"" + other + ",mp4a.40.2\",RESOLUTION=320x240",
         "master.m3u8: variant 240p/index.m3u8: CODECS says " + other + " but its init segment's av1C says " + real},
        {"iframe-stream", "master.m3u8", "CODECS=\"" + real + "\",RESOLUTION=320x240",
         "CODECS=\"" + other + "\",RESOLUTION=320x240",
         "master.m3u8: I-frame stream 240p/iframes.m3u8: CODECS says " + other + " but its init segment's av1C says " +
             real},
        {"video-range", "master.m3u8", "RESOLUTION=320x240,FRAME-RATE=25.000,VIDEO-RANGE=SDR",
         "RESOLUTION=320x240,FRAME-RATE=25.000,VIDEO-RANGE=PQ",
         "master.m3u8: variant 240p/index.m3u8: VIDEO-RANGE=PQ but its init segment's av1C says transfer "},
        {"dash-codecs", "manifest.mpd", "codecs=\"" + real + "\" width=\"320\"", "codecs=\"" + other + "\" width=\"320\"",
         "manifest.mpd: representation 240p: codecs says " + other + " but its init segment's av1C says " + real},
        // a 1 before the value: 6 (BT.601) becomes 16 (PQ), 1 (BT.709) 11
        {"dash-cicp", "manifest.mpd", "cicp:TransferCharacteristics\" value=\"", "cicp:TransferCharacteristics\" value=\"1",
         "manifest.mpd: representation 240p: SupplementalProperty urn:mpeg:mpegB:cicp:TransferCharacteristics says 1"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const fs::path d = copy_of_good("validate-colour-" + c.name);
        replace_in(d / c.file, c.from, c.to);
        expect_problem(validate(d), c.expected);
    }
}

TEST_F(ValidateMisses, NamesAv1CFieldsThatDisagreeWithItsSequenceHeader) {
    const fs::path d = copy_of_good("validate-av1c-fields");
    std::string bytes = read_bytes(d / "120p/init.mp4");
    const auto at = bytes.find("av1C");
    ASSERT_NE(at, std::string::npos);
    bytes[at + 6] = static_cast<char>(bytes[at + 6] ^ 0x08);  // chroma_subsampling_x
    write_bytes(d / "120p/init.mp4", bytes);
    expect_problem(validate(d), "120p/init.mp4: av1C's own fields disagree with its sequence header (av1C against "
                                "header): chroma_subsampling_x ");
}

TEST_F(ValidateMisses, NamesTheSameSegmentListedThreeTimes) {
    const fs::path d = copy_of_good("validate-listed-thrice");
    replace_in(d / "120p/index.m3u8", "\nseg_00002.m4s", "\nseg_00001.m4s");
    replace_in(d / "120p/index.m3u8", "\nseg_00003.m4s", "\nseg_00001.m4s");
    expect_problem(validate(d), "120p/index.m3u8: \"seg_00001.m4s\" is listed 3 times (a segment file plays once)");
}

TEST_F(ValidateMisses, NamesASegmentListedAgainUnderAnotherName) {
    const fs::path d = copy_of_good("validate-listed-again");
    replace_in(d / "120p/index.m3u8", "\nseg_00002.m4s", "\n./seg_00001.m4s");
    replace_in(d / "120p/index.m3u8", "\nseg_00003.m4s", "\n../120p/seg_00001.m4s");
    // A link in the folder, and another rung's segment.
    fs::remove(d / "240p/seg_00003.m4s");
    fs::create_symlink("seg_00001.m4s", d / "240p/seg_00003.m4s");
    replace_in(d / "audio/aac/index.m3u8", "\nseg_00002.m4s", "\n../../240p/seg_00002.m4s");
    const ProcessResult r = validate(d);
    expect_problem(r, "120p/index.m3u8: \"./seg_00001.m4s\" is listed 3 times (a segment file plays once)");
    expect_problem(r, "240p/index.m3u8: \"seg_00003.m4s\" is listed 2 times");
    expect_problem(r, "240p/iframes.m3u8: \"seg_00003.m4s\" is listed 2 times");
    expect_problem(r, "manifest.mpd: representation 240p: segment \"240p/seg_00003.m4s\" is listed 2 times");
    // Audio renditions are checked before the variants.
    expect_problem(r, "240p/index.m3u8: \"seg_00002.m4s\" is also listed by audio/aac/index.m3u8");
}

// A segment file whose content is another segment's, or segments swapped:
// the decode time (tfdt) does not go on.
TEST_F(ValidateMisses, NamesSegmentsWhoseTimelineDoesNotGoOn) {
    const fs::path copied = copy_of_good("validate-timeline-copied");
    fs::copy_file(copied / "120p/seg_00001.m4s", copied / "120p/seg_00002.m4s", fs::copy_options::overwrite_existing);
    const ProcessResult c = validate(copied);
    expect_problem(c, "120p/seg_00002.m4s: its samples start at 0.000000 s (tfdt) but the segment before it in the "
                      "playlist ends at 1.000000 s: the timeline does not go on");
    expect_problem(c, "manifest.mpd: representation 120p: segment 2 starts at 1.000000 s and lasts 1.000000 s in "
                      "the SegmentTimeline, but its samples play from 0.000000 s for 1.000000 s");

    const fs::path swapped = copy_of_good("validate-timeline-swapped");
    replace_in(swapped / "audio/aac/index.m3u8", "\nseg_00002.m4s", "\nseg_0000X.m4s");
    replace_in(swapped / "audio/aac/index.m3u8", "\nseg_00003.m4s", "\nseg_00002.m4s");
    replace_in(swapped / "audio/aac/index.m3u8", "\nseg_0000X.m4s", "\nseg_00003.m4s");
    expect_problem(validate(swapped), "audio/aac/seg_00003.m4s: its samples start at ");
}

TEST_F(ValidateMisses, NamesADashTimelineThatGoesBack) {
    const fs::path d = copy_of_good("validate-timeline-back");
    replace_all_in(d / "manifest.mpd", R"(<S t="0" d="25" r="2" />)",
                   R"(<S t="0" d="25" /><S t="0" d="25" /><S t="0" d="25" />)");
    expect_problem(validate(d), "manifest.mpd: representation 240p: an S starts at t=0, before the previous segment "
                                "ends at t=25: the timeline goes back");
}

// BaseURL at every level of the MPD: one leading out is named, and nothing
// it names is fetched or opened (a listening socket sees no connection, an
// outside folder no open); one leading inside is followed.
TEST_F(ValidateMisses, NamesABaseUrlLeadingOutsideAndFetchesNothing) {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listener, 16), 0);
    socklen_t length = sizeof address;
    ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
    const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/";
    const fs::path out = outside("validate-baseurl");
    fs::copy(good_ / "120p", out / "120p", fs::copy_options::recursive);
    OpenWatch watch(out);
    ASSERT_TRUE(watch.ok());

    struct Case {
        std::string name, before, base_url, after, expected;  // the BaseURL goes between before and after
    };
    const std::string period = R"(<Period id="0" start="PT0S">)";
    const std::string audio = R"(<Representation id="audio-aac")";
    const std::string template_120p = R"(<SegmentTemplate timescale="25" initialization="120p/init.mp4")";
    const std::vector<Case> cases{
        {"mpd", "", url, period,
         "BaseURL \"" + url + "\" of the MPD is outside the ladder: not read (a URL; ladder validate checks local "
                              "ladders only)"},
        {"period", period, out.string() + "/", "",
         "BaseURL \"" + out.string() + "/\" of Period 0 is outside the ladder: not read (an absolute path)"},
        {"adaptation-set", "", climbing_to(out) + "/", audio,
         "BaseURL \"" + climbing_to(out) + "/\" of AdaptationSet 1 is outside the ladder: not read (its .. leaves the "
                                           "ladder's folder)"},
        {"representation", "", "file://" + out.string() + "/", template_120p,
         "BaseURL \"file://" + out.string() + "/\" of representation 120p is outside the ladder: not read (a URL"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const fs::path d = copy_of_good("validate-baseurl-" + c.name);
        replace_in(d / "manifest.mpd", c.before + c.after, c.before + "<BaseURL>" + c.base_url + "</BaseURL>" + c.after);
        const ProcessResult r = validate_with_time_limit(d);
        expect_problem(r, "manifest.mpd: " + c.expected);
        expect_nothing_shown_from_outside(r);
    }
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
    EXPECT_LT(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC), 0) << "validate connected to " << url;
    EXPECT_EQ(errno, EAGAIN);
    ::close(listener);

    // A BaseURL inside the ladder is where the segments are looked for.
    const fs::path inside = copy_of_good("validate-baseurl-inside");
    replace_in(inside / "manifest.mpd", R"(initialization="120p/init.mp4" media="120p/seg_$Number%05d$.m4s")",
               R"(initialization="init.mp4" media="seg_$Number%05d$.m4s")");
    replace_in(inside / "manifest.mpd", R"(<SegmentTemplate timescale="25" initialization="init.mp4")",
               R"(<BaseURL>120p/</BaseURL><SegmentTemplate timescale="25" initialization="init.mp4")");
    const ProcessResult r = validate(inside);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}


}  // namespace
}  // namespace ladder::test
