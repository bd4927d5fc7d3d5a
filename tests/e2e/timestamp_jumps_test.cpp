// Sources whose timestamps jump (concatenated MPEG-TS recordings, broadcast
// captures) keep their content continuous: a jump forward never becomes
// minutes of repeated frames, a jump back never drops what follows; the
// audio stays with the video; a warning says where. A source whose picture
// size changes mid-stream is fitted into the first size (letterbox or
// pillarbox) instead of failing.
#include <gtest/gtest.h>

#include <regex>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

// One MPEG-TS part: `seconds` of a pattern and a tone, timestamps from `offset` on.
fs::path ts_part(const fs::path& dir, const std::string& name, const std::string& size, double seconds, double offset,
                 int tone_hz) {
    const fs::path file = dir / (name + ".ts");
    const auto r = run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                                fmt::format("testsrc2=s={}:r=25:d={}", size, seconds), "-f", "lavfi", "-i",
                                fmt::format("sine=f={}:d={}", tone_hz, seconds), "-c:v", "libx264", "-pix_fmt",
                                "yuv420p", "-g", "25", "-c:a", "aac", "-output_ts_offset", fmt::format("{}", offset),
                                "-f", "mpegts", file.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return file;
}

fs::path concatenated(const fs::path& dir, const std::vector<fs::path>& parts) {
    const fs::path out = dir / "joined.ts";
    std::ofstream joined(out, std::ios::binary);
    for (const auto& p : parts) joined << read_text(p);
    return out;
}

double playlist_seconds(const fs::path& playlist) {
    double total = 0;
    static const std::regex extinf(R"(#EXTINF:([0-9.]+))");
    const std::string text = read_text(playlist);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), extinf); it != std::sregex_iterator(); ++it)
        total += std::stod((*it)[1]);
    return total;
}

struct Jump {
    std::string label;
    double second_offset;  // where the second part's timestamps start
    bool same_part_twice;  // `cat a.ts a.ts`
};

void PrintTo(const Jump& j, std::ostream* os) { *os << j.label; }

const std::vector<Jump> kJumps{
    {"forward_1000s", 1000, false},
    {"forward_25h", 90000, false},
    {"forward_3s", 6.0, false},  // parts of 3 s: a 3-second gap
    {"back_to_the_start", 0, true},
    {"back_1s", 2.0, false},
};

class TimestampJump : public testing::TestWithParam<Jump> {};

TEST_P(TimestampJump, KeepsEveryFrameOnceAndTheAudioWithIt) {
    const Jump& j = GetParam();
    const fs::path dir = fresh_dir("ts-jump-" + j.label);
    const fs::path a = ts_part(dir, "a", "320x180", 3, 0, 440);
    const fs::path b = j.same_part_twice ? a : ts_part(dir, "b", "320x180", 3, j.second_offset, 880);
    const fs::path src = concatenated(dir, {a, b});
    const fs::path out = dir / "out";
    const auto r = run_ladder({"encode", src.string(), "-o", out.string(), "--preset", "12", "--rung",
                               "180p=320x180@300", "--decoders", "4"},
                              {}, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("timestamps jump by"), std::string::npos) << "a warning says where: " << r.err;
    const FileFacts facts = probe(out / "180p" / "index.m3u8");
    ASSERT_FALSE(facts.video.empty());
    EXPECT_EQ(facts.video[0].frames, 150) << "75 frames of each part, none invented or dropped";
    EXPECT_NEAR(playlist_seconds(out / "180p" / "index.m3u8"), 6.0, 0.001);
    EXPECT_NEAR(playlist_seconds(out / "audio" / "aac" / "index.m3u8"), 6.0, 0.1) << "the audio follows the video";
    const auto v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

const auto kJumpLabel = [](const testing::TestParamInfo<Jump>& i) { return i.param.label; };
INSTANTIATE_TEST_SUITE_P(Jumps, TimestampJump, testing::ValuesIn(kJumps), kJumpLabel);

// A continuous TS is read as before: no warning, lanes allowed.
TEST(TimestampJumps, AContinuousTransportStreamHasNone) {
    const fs::path dir = fresh_dir("ts-continuous");
    const fs::path src = ts_part(dir, "a", "320x180", 3, 0, 440);
    const auto r = run_ladder({"encode", src.string(), "-o", (dir / "out").string(), "--preset", "12", "--rung",
                               "180p=320x180@300"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("timestamps jump"), std::string::npos) << r.err;
    EXPECT_EQ(probe(dir / "out" / "180p" / "index.m3u8").video.at(0).frames, 75);
}

// 320x240 then 640x360 (the issue's case), and the other way round: every
// frame is kept, the second size fitted into the first with its aspect
// ratio (black bars), one warning.
TEST(PictureSizeChange, TheSecondSizeIsFittedIntoTheFirst) {
    for (const auto& [first, second] : {std::pair{"320x240", "640x360"}, std::pair{"640x360", "320x240"}}) {
        SCOPED_TRACE(std::string(first) + " then " + second);
        const fs::path dir = fresh_dir(std::string("size-change-") + first);
        const fs::path a = ts_part(dir, "a", first, 2, 0, 440);
        const fs::path b = ts_part(dir, "b", second, 2, 100, 880);
        const fs::path src = concatenated(dir, {a, b});
        const fs::path out = dir / "out";
        const auto r = run_ladder({"encode", src.string(), "-o", out.string(), "--preset", "12"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.err.find("the picture changes from"), std::string::npos) << r.err;
        const auto v = run_ladder({"validate", out.string()});
        EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
        // The smallest rung: its last frame has black bars where the second
        // size's aspect ratio leaves room (top for 16:9 in 4:3, left for 4:3 in 16:9).
        const std::string rung = std::string(first) == "320x240" ? "240p" : "360p";
        const std::string bar = std::string(first) == "320x240" ? "crop=iw:8:0:0" : "crop=8:ih:0:0";
        const auto y = run_process({"ffmpeg", "-hide_banner", "-i", (out / rung / "index.m3u8").string(), "-vf",
                                    "select=gte(n\\,75)," + bar + ",signalstats,metadata=print:key=lavfi.signalstats.YMAX",
                                    "-f", "null", "-"});
        std::smatch m;
        ASSERT_TRUE(std::regex_search(y.err, m, std::regex(R"(YMAX=([0-9]+))"))) << y.err;
        EXPECT_LE(std::stoi(m[1]), 24) << "black bars";
        EXPECT_EQ(probe(out / rung / "index.m3u8").video.at(0).frames, 100);
    }
}

}  // namespace
}  // namespace ladder::test
