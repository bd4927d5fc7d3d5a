// --quality: each rung's PSNR / SSIM / XPSNR from ladder's report against
// FFmpeg's own filters run by the ffmpeg program on the same pair of files
// (the rung's MP4, and the source scaled to the rung with the same bicubic
// scaler).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// FFmpeg's summary value for the whole file: psnr "average:", ssim "All:",
// xpsnr "XPSNR y:" (the luma value ladder reports).
double ffmpeg_metric(const fs::path& encoded, const fs::path& source, int w, int h, const std::string& metric) {
    const std::string graph = "[1:v]scale=" + std::to_string(w) + ":" + std::to_string(h) + ":flags=bicubic[ref];[0:v][ref]" + metric;
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
