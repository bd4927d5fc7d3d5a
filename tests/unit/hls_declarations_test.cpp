// What a master playlist declares against what its files measure
// (engine/check/hls_declarations.hpp), without files: the measurements are
// given.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/check/hls_declarations.hpp"

namespace ladder::engine {
namespace {

mux::HlsAttributes attributes(const std::vector<std::pair<std::string, std::string>>& values) {
    mux::HlsAttributes attrs;
    for (const auto& [name, value] : values) attrs.set(name, value, name == "CODECS");
    return attrs;
}

// Two 2-s segments of 250000 bytes: 1,000,000 bit/s at peak and on average.
TrackCheck one_megabit_video() {
    TrackCheck t;
    t.sizes = {{2.0, 250000}, {2.0, 250000}};
    t.boundaries = {2.0, 4.0};
    t.target_duration = 2;
    t.ok = true;
    return t;
}

TEST(HlsDeclarations, EveryAv1EntryOfCodecsMustBeTheInitSegments) {
    const std::string init = "av01.0.08M.08";
    EXPECT_EQ(disagreeing_codecs_entry("av01.0.08M.08,mp4a.40.2", init), std::nullopt);
    EXPECT_EQ(disagreeing_codecs_entry(" av01.0.08M.08 , mp4a.40.2", init), std::nullopt);
    EXPECT_EQ(disagreeing_codecs_entry("av01.0.05M.08,mp4a.40.2", init), "av01.0.05M.08");
    // No AV1 entry: the first names the video.
    EXPECT_EQ(disagreeing_codecs_entry("mp4a.40.2", init), "mp4a.40.2");
}

TEST(HlsDeclarations, VideoRangeMustFollowTheInitSegmentsTransfer) {
    InitFacts init{"av01.0.08M.08", ColourDescription{}};
    init.colour->transfer = 16;  // PQ
    const auto problems = declared_video_problems("variant a", attributes({{"CODECS", "av01.0.08M.08"},
                                                                            {"VIDEO-RANGE", "SDR"}}), init);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("VIDEO-RANGE=SDR"), std::string::npos) << problems[0];
    EXPECT_NE(problems[0].find("PQ"), std::string::npos) << problems[0];
}

TEST(HlsDeclarations, BandwidthsWithinTenPercentOfTheSegmentsPass) {
    const TrackCheck video = one_megabit_video();
    EXPECT_TRUE(bandwidth_problems(attributes({{"BANDWIDTH", "1050000"}, {"AVERAGE-BANDWIDTH", "950000"}}), video, {})
                    .empty());
    const auto problems =
        bandwidth_problems(attributes({{"BANDWIDTH", "1200000"}, {"RESOLUTION", "1280x720"}}), video, {});
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_NE(problems[0].find("BANDWIDTH=1200000 but the segments measure 1000000"), std::string::npos)
        << problems[0];
    EXPECT_EQ(problems[1], "variant 1280x720 has no AVERAGE-BANDWIDTH");
}

TEST(HlsDeclarations, TheLargestAudioRenditionOfTheGroupCounts) {
    TrackCheck small = one_megabit_video();
    small.sizes = {{2.0, 16000}, {2.0, 16000}};  // 64 kbit/s
    TrackCheck large = small;
    large.sizes = {{2.0, 200000}, {2.0, 200000}};  // 800 kbit/s
    TrackCheck unread = large;
    unread.sizes = {{2.0, 2500000}, {2.0, 2500000}};
    unread.ok = false;
    // The unread one (10 Mbit/s) is left out; the small one alone would
    // make 1064000, over 10% from what is declared.
    const auto attrs = attributes({{"BANDWIDTH", "1800000"}, {"AVERAGE-BANDWIDTH", "1800000"}});
    EXPECT_TRUE(bandwidth_problems(attrs, one_megabit_video(), {&small, &large, &unread}).empty());
    EXPECT_EQ(bandwidth_problems(attrs, one_megabit_video(), {&small}).size(), 2u);
}

TEST(HlsDeclarations, RungsAndRenditionsMustEndTheirSegmentsWhereTheFirstVariantDoes) {
    const TrackCheck reference = one_megabit_video();
    TrackCheck other = reference;
    EXPECT_TRUE(variant_alignment_problems(other, reference, "720p.m3u8").empty());
    other.boundaries = {2.1, 4.0};
    ASSERT_EQ(variant_alignment_problems(other, reference, "720p.m3u8").size(), 1u);
    other.boundaries = {4.0};
    EXPECT_NE(variant_alignment_problems(other, reference, "720p.m3u8")[0].find("1 segments, but 720p.m3u8 has 2"),
              std::string::npos);
    EXPECT_TRUE(subtitle_alignment_problems({2.0, 4.0}, reference).empty());
    EXPECT_EQ(subtitle_alignment_problems({3.0, 4.0}, reference).size(), 1u);
    // Audio may end a segment up to an AAC frame from the video's cut.
    TrackCheck audio = reference;
    audio.boundaries = {2.02, 4.0};
    EXPECT_TRUE(audio_alignment_problems("aac.m3u8", audio, reference).empty());
    audio.boundaries = {2.5, 4.0};
    EXPECT_EQ(audio_alignment_problems("aac.m3u8", audio, reference).size(), 1u);
}

}  // namespace
}  // namespace ladder::engine
