// How a rung's average rate stands against its target: the report's
// rate_verdict and target_off_percent, and the summary line's note.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/rate_note.hpp"
#include "engine/base/job_report.hpp"

namespace ladder {
namespace {

// 250 frames at 25 fps (10 s) for a 2500 kb/s target, making `kbps`.
engine::RungReport rung_making(double kbps, int target_kbps = 2500) {
    engine::RungReport r;
    r.name = "720p";
    r.bitrate_kbps = target_kbps;
    r.frames = 250;
    r.video_bytes = static_cast<std::size_t>(kbps * 1000 / 8 * 10);
    return r;
}

TEST(RateStanding, WithinFivePercentIsOnTargetAndTheSummarySaysNothingMore) {
    for (double kbps : {2376.0, 2500.0, 2624.0}) {
        const auto s = engine::rate_standing(rung_making(kbps), 25);
        ASSERT_TRUE(s.has_value());
        EXPECT_EQ(s->verdict, engine::RateStanding::Verdict::on_target) << kbps;
        EXPECT_EQ(cli::rate_note(rung_making(kbps), 25), "") << kbps;
    }
}

TEST(RateStanding, OverOrUnderTheBandIsSaidWithHowFar) {
    const auto over = engine::rate_standing(rung_making(3050), 25);
    ASSERT_TRUE(over.has_value());
    EXPECT_EQ(over->verdict, engine::RateStanding::Verdict::over);
    EXPECT_NEAR(over->off, 0.22, 1e-9);
    EXPECT_NEAR(over->average_kbps, 3050, 1e-6);
    EXPECT_EQ(cli::rate_note(rung_making(3050), 25), " (22% over its 2500 kb/s target)");
    EXPECT_EQ(engine::rate_standing(rung_making(2200), 25)->verdict, engine::RateStanding::Verdict::under);
    EXPECT_EQ(cli::rate_note(rung_making(2200), 25), " (12% under its 2500 kb/s target)");
}

// A budget rung no whole-CRF plan lands in the band for says why it is under.
TEST(RateStanding, ARungUnderItsBandForCoarseCrfStepsSaysSo) {
    auto under = rung_making(2274);
    under.crf_search = "mixed";
    EXPECT_EQ(cli::rate_note(under, 25),
              " (9% under its 2500 kb/s target: one CRF step of a chunk moves the rung further than the band)");
    auto in_band = rung_making(2450);
    in_band.crf_search = "mixed";
    EXPECT_EQ(cli::rate_note(in_band, 25), "");
}

TEST(RateStanding, APeakChunkOverTwiceTheAverageIsSaidToo) {
    auto r = rung_making(2500);                                  // 3,125,000 bytes over 250 frames
    r.peak_chunk_bytes_per_frame = 3'125'000.0 / 250 * 2.9;      // one chunk at 2.9x
    const auto s = engine::rate_standing(r, 25);
    ASSERT_TRUE(s.has_value());
    EXPECT_NEAR(s->peak_over_average, 2.9, 1e-9);
    EXPECT_EQ(cli::rate_note(r, 25), " (peak chunk 2.9x the average)");
    auto over = rung_making(3050);
    over.peak_chunk_bytes_per_frame = over.video_bytes / 250.0 * 2.5;
    EXPECT_EQ(cli::rate_note(over, 25), " (22% over its 2500 kb/s target; peak chunk 2.5x the average)");
    r.peak_chunk_bytes_per_frame = 3'125'000.0 / 250 * 2.0;  // at the limit: nothing to say
    EXPECT_EQ(cli::rate_note(r, 25), "");
}

TEST(RateStanding, NoTargetOrNoFramesHasNoStanding) {
    EXPECT_FALSE(engine::rate_standing(rung_making(3000, 0), 25).has_value());
    auto empty = rung_making(3000);
    empty.frames = 0;
    EXPECT_FALSE(engine::rate_standing(empty, 25).has_value());
    EXPECT_FALSE(engine::rate_standing(rung_making(3000), 0).has_value());
    EXPECT_EQ(cli::rate_note(empty, 25), "");
}

TEST(RateStanding, TheReportCarriesTheVerdictAndThePercentOffPerRung) {
    engine::JobReport report;
    report.frame_rate = 25;
    report.rungs = {rung_making(3050), rung_making(590, 600), rung_making(2200)};
    report.rungs[1].name = "360p";
    report.rungs[2].name = "540p";
    const nlohmann::json j = report;
    EXPECT_EQ(j.at("rungs").at(0).at("rate_verdict"), "over");
    EXPECT_DOUBLE_EQ(j.at("rungs").at(0).at("target_off_percent").get<double>(), 22.0);
    EXPECT_EQ(j.at("rungs").at(1).at("rate_verdict"), "on_target");
    EXPECT_DOUBLE_EQ(j.at("rungs").at(1).at("target_off_percent").get<double>(), -1.7);
    EXPECT_EQ(j.at("rungs").at(2).at("rate_verdict"), "under");
    EXPECT_DOUBLE_EQ(j.at("rungs").at(2).at("target_off_percent").get<double>(), -12.0);
}

}  // namespace
}  // namespace ladder
