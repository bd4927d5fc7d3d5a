// --quality: each rung's PSNR / SSIM / XPSNR from ladder's report against
// FFmpeg's own filters run by the ffmpeg program on the same pair of files
// (the rung's MP4, and the source scaled to the rung with the same bicubic
// scaler).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <cmath>
#include <regex>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// FFmpeg's summary value for the whole file: psnr "average:", ssim "All:",
// xpsnr "XPSNR y:" (the luma value ladder reports). Both inputs carry the
// encoded file's colour labels, so that FFmpeg 7.x converts neither
// (same_colour_as).
double ffmpeg_metric(const fs::path& encoded, const fs::path& source, int w, int h, const std::string& metric) {
    const std::string colour = same_colour_as(encoded);
    // Scaled as ladder scales its rungs (bit-exact rounding).
    const std::string graph = "[1:v]scale=" + std::to_string(w) + ":" + std::to_string(h) +
                              ":flags=bicubic+accurate_rnd+bitexact," + colour + "[ref];[0:v]" + colour +
                              "[enc];[enc][ref]" + metric;
    const ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-nostats", "-i", encoded.string(), "-i",
                                         source.string(), "-lavfi", graph, "-f", "null", "-"},
                                        {}, 120);
    const std::regex value(metric == "psnr"   ? R"(PSNR y:[0-9.]+ u:[0-9.]+ v:[0-9.]+ average:([0-9.]+))"
                           : metric == "ssim" ? R"(SSIM Y:.* All:([0-9.]+))"
                                              : R"(XPSNR\s+y:\s*([0-9.]+))");
    std::smatch m;
    if (!std::regex_search(r.err, m, value)) throw std::runtime_error("no " + metric + " summary from ffmpeg: " + r.err);
    return std::stod(m[1]);
}

bool ffmpeg_has_filter(const std::string& name) {
    const ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-filters"}, {}, 60);
    return std::regex_search(r.out, std::regex("\\s" + name + "\\s"));
}

class Quality : public ::testing::TestWithParam<std::string> {};

TEST_P(Quality, EachRungAgreesWithFfmpegsOwnFilterOnTheSamePair) {
    const std::string metric = GetParam();
    if (metric == "xpsnr" && !ffmpeg_has_filter("xpsnr"))
        GTEST_SKIP() << "this FFmpeg has no xpsnr filter (7.0 and newer have it); ladder refuses --quality xpsnr "
                        "there (Quality.XpsnrWithoutTheFilterIsAUsageError)";
    const fs::path src = make_clip("quality-src", {320, 240, "25", 6.0, false, ""});
    const fs::path out = fresh_dir("quality-" + metric) / "out";
    const ProcessResult r =
        run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--rung", "240p=320x240@400",
                    "--rung", "120p=160x120@120", "--preset", "12", "--quality", metric, "--progress", "plain"},
                   {}, 180);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json report = json::parse(read_text(out / "report.json"));
    for (const json& rung : report["rungs"]) {
        const std::string name = rung["name"];
        SCOPED_TRACE(name);
        ASSERT_TRUE(rung.contains("quality")) << rung.dump();
        const json& q = rung["quality"][metric];
        EXPECT_EQ(q["chunks"], 3);
        EXPECT_LE(q["min"].get<double>(), q["mean"].get<double>() + 1e-9);
        const double theirs = ffmpeg_metric(out / (name + ".mp4"), src, rung["width"], rung["height"], metric);
        std::printf("[ metric   ] %s %s: ladder %.4f, ffmpeg %.4f\n", name.c_str(), metric.c_str(),
                    q["mean"].get<double>(), theirs);
        EXPECT_NEAR(q["mean"].get<double>(), theirs, metric == "ssim" ? 0.0005 : 0.05);
        EXPECT_NE(r.out.find(metric + " "), std::string::npos) << "the summary line names it: " << r.out;
    }
    int measured = 0;
    for (const json& c : report["chunks"]) measured += c.contains("quality") && c["quality"].contains(metric);
    EXPECT_EQ(measured, 6) << "every chunk of both rungs";
}

INSTANTIATE_TEST_SUITE_P(Metrics, Quality, ::testing::Values("psnr", "ssim", "xpsnr"));

// scripts/bench's measurement of the same pair: benchlib.quality_metrics's
// psnr_avg (the psnr filter's average over Y, U and V).
double bench_psnr(const fs::path& encoded, const fs::path& source, int w, int h) {
    const std::string code =
        "import sys; sys.path.insert(0, sys.argv[1]); import benchlib; "
        "q = benchlib.quality_metrics('ffmpeg', sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])); "
        "print(q.get('psnr_avg'), q.get('error', ''))";
    const ProcessResult r = run_process({"python3", "-c", code, std::string(LADDER_SOURCE_DIR) + "/scripts",
                                         encoded.string(), source.string(), std::to_string(w), std::to_string(h)},
                                        {}, 120);
    if (r.exit_code != 0 || r.out.rfind("None", 0) == 0)
        throw std::runtime_error("benchlib.quality_metrics failed: " + r.out + r.err);
    return std::stod(r.out);
}

// The colour tags of a file's first video stream, as ffprobe names them.
std::string colour_tags(const fs::path& file) {
    const ProcessResult r = run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                         "stream=color_space,color_range,color_primaries,color_transfer", "-of",
                                         "compact=p=0:nk=0", file.string()},
                                        {}, 60);
    return r.out.substr(0, r.out.find('\n'));
}

// ladder tags an HD rung of an untagged source BT.709 (limited); the
// reference FFmpeg scales from that source is untagged. FFmpeg 7.x's filter
// graph then converts one side to the other's matrix before the metric (2-6
// dB of PSNR that are not there); the test helpers and scripts/bench give
// both sides the encoded file's tags, so the outside measurements agree with
// ladder's own --quality, which compares the pixels as they are, on FFmpeg
// 5.1 and 7.1 alike.
TEST(QualityOfAnUntaggedSource, TheOutsideMeasurementOfAnHdRungAgreesWithLaddersOwn) {
    const fs::path src = make_clip("quality-hd-src", {1280, 720, "25", 2.0, false, ""});
    const std::string src_tags = colour_tags(src);
    ASSERT_EQ(src_tags.find("bt709"), std::string::npos) << "the source must be untagged: " << src_tags;
    const fs::path out = fresh_dir("quality-hd") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--rung",
                                        "720p=1280x720@1500", "--preset", "12", "--quality", "psnr", "--progress",
                                        "none"},
                                       {}, 180);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const fs::path rung = out / "720p.mp4";
    EXPECT_EQ(colour_tags(rung),
              "color_range=tv|color_space=bt709|color_transfer=bt709|color_primaries=bt709");
    const json report = json::parse(read_text(out / "report.json"));
    const double ladders = report["rungs"][0]["quality"]["psnr"]["mean"].get<double>();
    const double outside = psnr_against_source(rung, src, 1280, 720);
    // psnr_per_frame's frames, summed up as the psnr filter does: the PSNR
    // of the mean error (each frame's error from its dB value).
    const double per_frame = [&] {
        const std::vector<double> frames = psnr_per_frame(rung, src, 1280, 720);
        double error = 0;
        for (double db : frames) error += std::pow(10.0, -db / 10.0);
        return frames.empty() ? 0.0 : -10.0 * std::log10(error / static_cast<double>(frames.size()));
    }();
    const double filter = ffmpeg_metric(rung, src, 1280, 720, "psnr");
    const double bench = bench_psnr(rung, src, 1280, 720);
    std::printf("[ metric   ] 720p of an untagged source: ladder's PSNR %.2f, psnr_against_source %.2f, "
                "psnr_per_frame %.2f, quality_test's filter %.2f, scripts/bench's %.2f dB\n",
                ladders, outside, per_frame, filter, bench);
    EXPECT_NEAR(outside, ladders, 0.1);
    EXPECT_NEAR(filter, ladders, 0.1);
    EXPECT_NEAR(bench, ladders, 0.1);
    EXPECT_NEAR(per_frame, ladders, 0.1);
}

TEST(QualityOption, UnknownMetricsAndXpsnrWithoutTheFilterAreUsageErrors) {
    const fs::path src = make_clip("quality-bad-src", {160, 120, "25", 1.0, false, ""});
    const fs::path out = fresh_dir("quality-bad") / "out";
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--quality", "vmaf"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--quality vmaf: use psnr, ssim, xpsnr or none"), std::string::npos) << r.err;
    if (!ffmpeg_has_filter("xpsnr")) {
        r = run_ladder({"encode", src.string(), "-o", out.string(), "--quality", "xpsnr"});
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_NE(r.err.find("has no xpsnr filter"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(out / "report.json"));
}

}  // namespace
}  // namespace ladder::test
