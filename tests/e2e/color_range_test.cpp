// Full-range sources: the range the outputs say is the range their pixels
// are. Whatever way a source says "full range" (a yuvj pixel format from the
// H.264, HEVC or MJPEG decoder, a full-range tag at 8 or 10 bits), ladder
// converts the samples to limited range and tags limited, so a player that
// expands limited range shows the source's colours: RGB PSNR against the
// source, each side read with its own tags, is as high as for a limited
// source. Before, 8-bit full-range sources were converted but tagged full:
// players expanded them twice (RGB PSNR about 25 dB).
#include <gtest/gtest.h>

#include <regex>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

struct RangeSource {
    std::string label;
    std::vector<std::string> encode;  // ffmpeg output options making the source
};

void PrintTo(const RangeSource& s, std::ostream* os) { *os << s.label; }

const std::vector<RangeSource> kSources{
    {"limited", {"-c:v", "libx264", "-pix_fmt", "yuv420p"}},
    {"yuvj420p", {"-c:v", "libx264", "-pix_fmt", "yuvj420p"}},
    {"x264_fullrange", {"-c:v", "libx264", "-pix_fmt", "yuv420p", "-x264-params", "fullrange=on"}},
    {"x264_fullrange_10bit", {"-c:v", "libx264", "-pix_fmt", "yuv420p10le", "-x264-params", "fullrange=on"}},
    {"x265_range_full", {"-c:v", "libx265", "-pix_fmt", "yuv420p", "-x265-params", "range=full:log-level=error"}},
    {"mjpeg", {"-c:v", "mjpeg", "-pix_fmt", "yuvj420p", "-q:v", "2"}},
};

fs::path make_range_source(const RangeSource& s, const fs::path& dir) {
    const fs::path file = dir / (s.label + (s.label == "mjpeg" ? ".mkv" : ".mp4"));
    std::vector<std::string> argv{"ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                                  "testsrc2=s=320x180:r=25:d=2"};
    argv.insert(argv.end(), s.encode.begin(), s.encode.end());
    argv.push_back(file.string());
    const auto r = run_process(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return file;
}

// Both sides converted to planar RGB by FFmpeg's scale filter, each read
// with its own range and matrix: what a player shows.
double rgb_psnr(const fs::path& out, const fs::path& src) {
    const auto r = run_process({"ffmpeg", "-hide_banner", "-nostats", "-i", out.string(), "-i", src.string(), "-lavfi",
                                "[0:v]scale,format=gbrp[a];[1:v]scale,format=gbrp[b];[a][b]psnr", "-f", "null", "-"});
    std::smatch m;
    static const std::regex average(R"(average:([0-9.]+|inf))");
    if (!std::regex_search(r.err, m, average)) return 0;
    return m[1] == "inf" ? 100.0 : std::stod(m[1]);
}

std::string probe_range(const fs::path& file) {
    const auto r = run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                "stream=color_range", "-of", "default=nw=1:nk=1", file.string()});
    return r.out.substr(0, r.out.find('\n'));
}

class FullRange : public testing::TestWithParam<RangeSource> {};

TEST_P(FullRange, OutputsSayTheRangeTheirPixelsAre) {
    const fs::path dir = fresh_dir("range-" + GetParam().label);
    const fs::path src = make_range_source(GetParam(), dir);
    const fs::path out = dir / "out";
    const auto r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "both", "--preset", "10",
                               "--rung", "180p=320x180@1500", "--audio", "none"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(probe_range(out / "180p.mp4"), "tv");
    EXPECT_EQ(probe_range(out / "180p" / "init.mp4"), "tv");
    // CODECS: the full-range flag, when the long form is written, is 0.
    const std::string master = read_text(out / "master.m3u8");
    std::smatch codecs;
    ASSERT_TRUE(std::regex_search(master, codecs, std::regex(R"re(CODECS="(av01[^",]*))re"))) << master;
    const std::string c = codecs[1];
    if (std::count(c.begin(), c.end(), '.') == 9) {
        EXPECT_EQ(c.back(), '0') << c;
    }
    const double psnr = rgb_psnr(out / "180p.mp4", src);
    std::printf("[ metric   ] %s: RGB PSNR %.2f dB\n", GetParam().label.c_str(), psnr);
    EXPECT_GT(psnr, 38.0) << "the output looks different from the source (range applied twice?)";
    const auto v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

const auto kRangeLabel = [](const testing::TestParamInfo<RangeSource>& i) { return i.param.label; };
INSTANTIATE_TEST_SUITE_P(Sources, FullRange, testing::ValuesIn(kSources), kRangeLabel);

}  // namespace
}  // namespace ladder::test
