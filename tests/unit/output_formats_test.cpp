// --format as a set of formats (engine/output/output_formats.hpp): its
// names parsed and written back, and what each set makes a rung write
// (engine/output/output_paths.hpp's ladder_outputs).
#include "engine/output/output_formats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/output/output_paths.hpp"

namespace ladder::engine {
namespace {

std::string error_of(const std::string& list) {
    try {
        parse_output_formats(list);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(OutputFormats, EachNameIsOneFormat) {
    EXPECT_EQ(parse_output_formats("hls"), OutputFormats{OutputFormat::hls});
    EXPECT_EQ(parse_output_formats("dash"), OutputFormats{OutputFormat::dash});
    EXPECT_EQ(parse_output_formats("mp4"), OutputFormats{OutputFormat::mp4});
    const OutputFormats dash = parse_output_formats("dash");
    EXPECT_TRUE(dash.contains(OutputFormat::dash));
    EXPECT_FALSE(dash.contains(OutputFormat::hls));
    EXPECT_FALSE(dash.contains(OutputFormat::mp4));
}

TEST(OutputFormats, AllThreeRoundTrip) {
    const OutputFormats all = parse_output_formats("hls,dash,mp4");
    for (OutputFormat f : kOutputFormats) EXPECT_TRUE(all.contains(f)) << format_name(f);
    EXPECT_EQ(to_string(all), "hls,dash,mp4");
    EXPECT_EQ(parse_output_formats(to_string(all)), all);
    for (const char* list : {"hls", "dash", "mp4", "hls,dash", "hls,mp4", "dash,mp4"})
        EXPECT_EQ(to_string(parse_output_formats(list)), list);
}

TEST(OutputFormats, OrderAndRepetitionDoNotMatter) {
    EXPECT_EQ(parse_output_formats("mp4,dash,hls"), parse_output_formats("hls,dash,mp4"));
    EXPECT_EQ(to_string(parse_output_formats("mp4,hls,mp4")), "hls,mp4");
}

TEST(OutputFormats, BothIsHlsAndMp4) {
    EXPECT_EQ(parse_output_formats("both"), (OutputFormats{OutputFormat::hls, OutputFormat::mp4}));
    EXPECT_EQ(to_string(parse_output_formats("both,dash")), "hls,dash,mp4");
}

TEST(OutputFormats, UnknownNamesAreRefusedByName) {
    EXPECT_EQ(error_of("smooth"),
              "--format smooth: 'smooth' is not a format: use a comma list of hls, dash and mp4 (both = hls,mp4)");
    EXPECT_EQ(error_of("hls,HLS"),
              "--format hls,HLS: 'HLS' is not a format: use a comma list of hls, dash and mp4 (both = hls,mp4)");
    EXPECT_EQ(error_of("hls,,mp4"),
              "--format hls,,mp4: '' is not a format: use a comma list of hls, dash and mp4 (both = hls,mp4)");
    EXPECT_EQ(error_of("hls dash"),
              "--format hls dash: 'hls dash' is not a format: use a comma list of hls, dash and mp4 (both = hls,mp4)");
    EXPECT_EQ(error_of(""), "--format: name at least one of hls, dash and mp4");
}

TEST(OutputFormats, CmafSegmentsAreWrittenForHlsAndForDash) {
    EXPECT_TRUE(OutputFormats{OutputFormat::hls}.cmaf_segments());
    EXPECT_TRUE(OutputFormats{OutputFormat::dash}.cmaf_segments());
    EXPECT_FALSE(OutputFormats{OutputFormat::mp4}.cmaf_segments());
    EXPECT_FALSE(OutputFormats{}.cmaf_segments());
    EXPECT_TRUE(OutputFormats{}.empty());
}

TEST(OutputFormats, EachSetGivesTheRungsTheirOutputs) {
    const auto of = [](const char* list) { return ladder_outputs({"720p"}, parse_output_formats(list), {"aac"}); };
    const LadderOutputs mp4 = of("mp4");
    EXPECT_EQ(mp4.rungs.at(0).mp4, "720p.mp4");
    EXPECT_FALSE(mp4.rungs.at(0).hls_folder);
    EXPECT_TRUE(mp4.folders.empty());

    const LadderOutputs hls = of("hls");
    EXPECT_FALSE(hls.rungs.at(0).mp4);
    EXPECT_EQ(hls.rungs.at(0).hls_folder, "720p");
    EXPECT_NE(std::find(hls.finals.begin(), hls.finals.end(), "master.m3u8"), hls.finals.end());
    EXPECT_EQ(std::find(hls.finals.begin(), hls.finals.end(), "manifest.mpd"), hls.finals.end());

    // DASH's manifest names the HLS rung's CMAF segments: they, their
    // playlists and the master playlist are written with it.
    const LadderOutputs dash = of("dash");
    EXPECT_FALSE(dash.rungs.at(0).mp4);
    EXPECT_EQ(dash.rungs.at(0).hls_folder, "720p");
    EXPECT_NE(std::find(dash.finals.begin(), dash.finals.end(), "manifest.mpd"), dash.finals.end());
    EXPECT_NE(std::find(dash.finals.begin(), dash.finals.end(), "master.m3u8"), dash.finals.end());

    const LadderOutputs all = of("hls,dash,mp4");
    EXPECT_EQ(all.rungs.at(0).mp4, "720p.mp4");
    EXPECT_EQ(all.rungs.at(0).hls_folder, "720p");
    EXPECT_EQ(all.finals, (std::vector<std::filesystem::path>{"720p.mp4", "720p/index.m3u8", "master.m3u8",
                                                              "audio/aac/index.m3u8", "manifest.mpd"}));
}

}  // namespace
}  // namespace ladder::engine
