// fit_to_source on portrait and square sources: a rung's number is its short
// side (the height of a landscape source's rung, the width of a portrait
// one's, both sides of a square one's), never an upscale, bit rates kept with
// the rung's name.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "engine/plan/ladder_spec.hpp"

using ladder::engine::default_ladder;
using ladder::engine::fit_to_source;
using ladder::engine::LadderSpec;
using ladder::engine::parse_ladder_json;
using ladder::engine::parse_rung_argument;
using ladder::engine::validate_ladder;

namespace {

struct FittedSize {
    std::string name;
    int width;
    int height;
    friend bool operator==(const FittedSize&, const FittedSize&) = default;
    friend std::ostream& operator<<(std::ostream& os, const FittedSize& s) {
        return os << s.name << " " << s.width << "x" << s.height;
    }
};

std::vector<FittedSize> fitted_sizes(const LadderSpec& spec) {
    std::vector<FittedSize> out;
    for (const auto& r : spec.rungs) out.push_back({r.name, r.width, r.height});
    return out;
}

}  // namespace

// A rung's number is its short side: a phone clip's top rung is as sharp as a
// landscape clip's, not a 608-pixel-wide strip.
TEST(FitToSource, PortraitSourceGetsEachRungOnItsShortSide) {
    const auto fitted = fit_to_source(default_ladder(), 1080, 1920);
    EXPECT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"1080p", 1080, 1920},
                                                                    {"720p", 720, 1280},
                                                                    {"540p", 540, 960},
                                                                    {"360p", 360, 640}}));
    EXPECT_TRUE(fitted.notes.empty()) << fitted.notes.front();
    // Bit rates stay with the rung's name, whichever way the picture is turned.
    ASSERT_EQ(fitted.ladder.rungs.size(), 4u);
    EXPECT_EQ(fitted.ladder.rungs[0].bitrate_kbps, 4500);
    EXPECT_EQ(fitted.ladder.rungs[1].bitrate_kbps, 2500);
    EXPECT_EQ(fitted.ladder.rungs[2].bitrate_kbps, 1200);
    EXPECT_EQ(fitted.ladder.rungs[3].bitrate_kbps, 600);
    EXPECT_NO_THROW(validate_ladder(fitted.ladder));
}

TEST(FitToSource, SquareSourceGetsBothSidesFromTheRungsNumber) {
    const auto fitted = fit_to_source(default_ladder(), 1080, 1080);
    EXPECT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"1080p", 1080, 1080},
                                                                    {"720p", 720, 720},
                                                                    {"540p", 540, 540},
                                                                    {"360p", 360, 360}}));
    EXPECT_TRUE(fitted.notes.empty());
}

// A source wider than 16:9 fills each tier's box across: a 2.40:1 film at
// 1920x800 keeps a 1080p rung at its own size (the short-side rule made it
// 2592x1080 and dropped it, leaving 720p at 1728x720 on top).
TEST(FitToSource, AWideSourceFillsTheWidthOfEachTiersBox) {
    const auto scope = fit_to_source(default_ladder(), 1920, 800);
    EXPECT_EQ(fitted_sizes(scope.ladder), (std::vector<FittedSize>{{"1080p", 1920, 800},
                                                                   {"720p", 1280, 534},
                                                                   {"540p", 960, 400},
                                                                   {"360p", 640, 266}}));
    EXPECT_TRUE(scope.notes.empty());
    const auto cropped = fit_to_source(default_ladder(), 1920, 1040);
    EXPECT_EQ(fitted_sizes(cropped.ladder).front(), (FittedSize{"1080p", 1920, 1040}));
    // A portrait source taller than 9:16 fills the box's height.
    const auto tall = fit_to_source(default_ladder(), 800, 1920);
    EXPECT_EQ(fitted_sizes(tall.ladder).front(), (FittedSize{"1080p", 800, 1920}));
}

TEST(FitToSource, LandscapeSourcesUpTo16By9KeepTheHeightAsTheNumber) {
    const auto four_by_three = fit_to_source(default_ladder(), 1440, 1080);
    EXPECT_EQ(fitted_sizes(four_by_three.ladder).front(), (FittedSize{"1080p", 1440, 1080}));
    const auto nearly_square = fit_to_source(default_ladder(), 1082, 1080);
    ASSERT_EQ(nearly_square.ladder.rungs.size(), 4u);
    EXPECT_EQ(fitted_sizes(nearly_square.ladder).front(), (FittedSize{"1080p", 1082, 1080}));
}

TEST(FitToSource, SmallPortraitSourceIsNeverUpscaled) {
    const auto fitted = fit_to_source(default_ladder(), 360, 640);
    EXPECT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"360p", 360, 640}}));
    // The notes name the size each dropped rung would have had on this source.
    ASSERT_EQ(fitted.notes.size(), 3u);
    EXPECT_EQ(fitted.notes[0], "rung 1080p (1080x1920) dropped: the source is only 360x640 and ladder never upscales");
    EXPECT_EQ(fitted.notes[1], "rung 720p (720x1280) dropped: the source is only 360x640 and ladder never upscales");
    EXPECT_EQ(fitted.notes[2], "rung 540p (540x960) dropped: the source is only 360x640 and ladder never upscales");
}

TEST(FitToSource, TinyPortraitSourceKeepsOneRungNamedByItsShortSide) {
    const auto fitted = fit_to_source(default_ladder(), 180, 320);
    ASSERT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"180p", 180, 320}}));
    EXPECT_EQ(fitted.ladder.rungs[0].bitrate_kbps, 600);  // the smallest rung's bitrate
    EXPECT_EQ(fitted.notes.back(), "every rung is larger than the source: making one rung 180p at 180x320");
}

TEST(FitToSource, PortraitLongSideIsEvenAndNeverBeyondTheSource) {
    // 1080x1919: 1080 x 1919/1080 rounds to 1920, one line more than the source.
    const auto odd = fit_to_source(default_ladder(), 1080, 1919);
    ASSERT_FALSE(odd.ladder.rungs.empty());
    EXPECT_EQ(fitted_sizes(odd.ladder).front(), (FittedSize{"1080p", 1080, 1918}));
    // The rotated 320x240 corpus clip, displayed as 240x320: x160 keeps 3:4.
    LadderSpec one{{parse_rung_argument("160p=x160@200")}};
    EXPECT_EQ(fitted_sizes(fit_to_source(one, 240, 320).ladder), (std::vector<FittedSize>{{"160p", 160, 214}}));
}

TEST(FitToSource, RungArgumentFormsOnAPortraitSource) {
    LadderSpec spec{{parse_rung_argument("720p=x720@2500"), parse_rung_argument("360p=0x360@600")}};
    const auto fitted = fit_to_source(spec, 1080, 1920);
    ASSERT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"720p", 720, 1280}, {"360p", 360, 640}}));
    EXPECT_EQ(fitted.ladder.rungs[0].bitrate_kbps, 2500);
    EXPECT_TRUE(fitted.notes.empty());
}

TEST(FitToSource, ExplicitSizeOnAPortraitSourceIsKeptAsWrittenWithANote) {
    LadderSpec spec{{parse_rung_argument("1080p=1920x1080@4500"), parse_rung_argument("tall=360x640@600"),
                     parse_rung_argument("flat=640x360@600")}};
    const auto fitted = fit_to_source(spec, 1080, 1920);
    EXPECT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"tall", 360, 640}, {"flat", 640, 360}}));
    ASSERT_EQ(fitted.notes.size(), 2u);
    EXPECT_EQ(fitted.notes[0],
              "rung 1080p (1920x1080) dropped: the source is only 1080x1920 and ladder never upscales");
    EXPECT_EQ(fitted.notes[1], "rung flat (640x360) is landscape but the source is portrait (1080x1920): its picture "
                               "is stretched to that size; give only the short side (x360) to follow the source's "
                               "shape");
}

TEST(FitToSource, JsonPresetOnAPortraitSource) {
    const LadderSpec spec = parse_ladder_json(R"({"rungs": [
        {"name": "720p", "height": 720, "bitrate_kbps": 2500},
        {"name": "240p", "height": 240, "bitrate_kbps": 300}]})",
                                              "portrait.json");
    const auto fitted = fit_to_source(spec, 720, 1280);
    ASSERT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"720p", 720, 1280}, {"240p", 240, 426}}));
    EXPECT_EQ(fitted.ladder.rungs[1].bitrate_kbps, 300);
}
