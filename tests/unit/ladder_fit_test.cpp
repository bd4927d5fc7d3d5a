// fit_to_source: a rung's number names a tier whose 16:9 box the picture
// fills (the short side up to 16:9, on landscape, portrait and square
// sources), never an upscale (a tier a crop misses by a few lines is made at
// the source's size), even sizes, the display aspect, bit rates kept with
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
using ladder::engine::RungSpec;
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

// ---------------------------------------------------------------- landscape sources

TEST(FitToSource, FullHdSourceKeepsEveryRung) {
    const auto fitted = fit_to_source(default_ladder(), 1920, 1080);
    EXPECT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"1080p", 1920, 1080},
                                                       {"720p", 1280, 720},
                                                       {"540p", 960, 540},
                                                       {"360p", 640, 360}}));
    EXPECT_TRUE(fitted.notes.empty());
}

TEST(FitToSource, HdSourceDropsOnlyTheUpscalingRung) {
    const auto fitted = fit_to_source(default_ladder(), 1280, 720);
    EXPECT_EQ(fitted_sizes(fitted.ladder),
              (std::vector<FittedSize>{{"720p", 1280, 720}, {"540p", 960, 540}, {"360p", 640, 360}}));
    // Bitrates travel with their rungs.
    ASSERT_EQ(fitted.ladder.rungs.size(), 3u);
    EXPECT_EQ(fitted.ladder.rungs[0].bitrate_kbps, 2500);
    EXPECT_EQ(fitted.ladder.rungs[1].bitrate_kbps, 1200);
    EXPECT_EQ(fitted.ladder.rungs[2].bitrate_kbps, 600);
    // The user is told what was dropped.
    ASSERT_EQ(fitted.notes.size(), 1u);
    EXPECT_NE(fitted.notes[0].find("1080p"), std::string::npos) << fitted.notes[0];
}

TEST(FitToSource, FourByThreeSourceDerivesNarrowerWidths) {
    const auto fitted = fit_to_source(default_ladder(), 640, 480);
    EXPECT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"360p", 480, 360}}));
    EXPECT_EQ(fitted.notes.size(), 3u);  // 1080p, 720p, 540p dropped
}

TEST(FitToSource, TinySourceKeepsOneRungAtTheSourceSize) {
    const auto fitted = fit_to_source(default_ladder(), 320, 240);
    ASSERT_EQ(fitted.ladder.rungs.size(), 1u);
    const RungSpec& r = fitted.ladder.rungs[0];
    EXPECT_EQ(r.width, 320);
    EXPECT_EQ(r.height, 240);
    EXPECT_EQ(r.name, "240p");
    EXPECT_EQ(r.bitrate_kbps, 600);  // the smallest rung's bitrate
    EXPECT_FALSE(fitted.notes.empty());
    EXPECT_NO_THROW(validate_ladder(fitted.ladder));
}

TEST(FitToSource, TinyOddSourceKeepsEvenDimensions) {
    const auto fitted = fit_to_source(default_ladder(), 321, 241);
    ASSERT_EQ(fitted.ladder.rungs.size(), 1u);
    EXPECT_EQ(fitted.ladder.rungs[0].width, 320);
    EXPECT_EQ(fitted.ladder.rungs[0].height, 240);
}

TEST(FitToSource, AnamorphicSourceUsesTheDisplayWidth) {
    // PAL DVD 720x576 with SAR 16:15 is displayed as 768x576 (4:3).
    const auto pal = fit_to_source(default_ladder(), 768, 576);
    EXPECT_EQ(fitted_sizes(pal.ladder), (std::vector<FittedSize>{{"540p", 720, 540}, {"360p", 480, 360}}));

    // HDV 1440x1080 with SAR 4:3 is displayed as 1920x1080 (16:9).
    const auto hdv = fit_to_source(default_ladder(), 1920, 1080);
    EXPECT_EQ(fitted_sizes(hdv.ladder), (std::vector<FittedSize>{{"1080p", 1920, 1080},
                                                   {"720p", 1280, 720},
                                                   {"540p", 960, 540},
                                                   {"360p", 640, 360}}));
}

TEST(FitToSource, DerivedWidthsAreEvenAndNeverUpscale) {
    struct Source {
        int w, h;
    };
    for (const Source s : {Source{854, 480}, Source{1920, 800}, Source{720, 1280}, Source{1080, 1080},
                           Source{3840, 1606}, Source{1366, 768}, Source{500, 376}}) {
        SCOPED_TRACE(std::to_string(s.w) + "x" + std::to_string(s.h));
        const auto fitted = fit_to_source(default_ladder(), s.w, s.h);
        ASSERT_FALSE(fitted.ladder.rungs.empty());
        for (const auto& r : fitted.ladder.rungs) {
            SCOPED_TRACE(r.name);
            EXPECT_EQ(r.width % 2, 0);
            EXPECT_EQ(r.height % 2, 0);
            EXPECT_LE(r.width, s.w);
            EXPECT_LE(r.height, s.h);
            EXPECT_GT(r.width, 0);
            // Aspect ratio kept within the rounding of the derived side to
            // even (the width up to 16:9, the height beyond).
            const double wide = static_cast<double>(s.w) / s.h;
            if (std::max(wide, 1 / wide) <= 16.0 / 9.0)
                EXPECT_NEAR(static_cast<double>(r.width), static_cast<double>(r.height) * wide, 1.0 + 1e-9);
            else if (wide > 1)
                EXPECT_NEAR(static_cast<double>(r.height), static_cast<double>(r.width) / wide, 1.0 + 1e-9);
            else
                EXPECT_NEAR(static_cast<double>(r.width), static_cast<double>(r.height) * wide, 1.0 + 1e-9);
        }
    }
}

TEST(FitToSource, ExplicitWidthIsKeptOrDroppedButNeverChanged) {
    LadderSpec spec{{{"wide", 1920, 720, 3000, 0, 0}, {"narrow", 1000, 720, 2000, 0, 0}}};
    const auto fitted = fit_to_source(spec, 1280, 720);
    EXPECT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"narrow", 1000, 720}}));
    ASSERT_EQ(fitted.notes.size(), 1u);
    EXPECT_NE(fitted.notes[0].find("wide"), std::string::npos);
}

TEST(FitToSource, RateControlFieldsSurvive) {
    LadderSpec spec{{{"720p", 0, 720, 2500, 4000, 6000}}};
    const auto fitted = fit_to_source(spec, 1280, 720);
    ASSERT_EQ(fitted.ladder.rungs.size(), 1u);
    EXPECT_EQ(fitted.ladder.rungs[0].maxrate_kbps, 4000);
    EXPECT_EQ(fitted.ladder.rungs[0].bufsize_kbps, 6000);
}

// Rounding to even must not turn the source-sized rung into an "upscale":
// 1279x720 keeps its 720p rung at 1278x720.
TEST(FitToSource, OddDisplayWidthKeepsTheSourceHeightRung) {
    const auto fitted = fit_to_source(default_ladder(), 1279, 720);
    ASSERT_FALSE(fitted.ladder.rungs.empty());
    EXPECT_EQ(fitted.ladder.rungs[0].height, 720);
    EXPECT_LE(fitted.ladder.rungs[0].width, 1279);
}

TEST(FitToSource, ATierASourceMissesByAFewLinesIsMadeAtTheSourcesSize) {
    const auto cropped = fit_to_source(default_ladder(), 1912, 1076);
    EXPECT_EQ(fitted_sizes(cropped.ladder), (std::vector<FittedSize>{{"1080p", 1912, 1076},
                                                       {"720p", 1280, 720},
                                                       {"540p", 960, 540},
                                                       {"360p", 640, 360}}));
    ASSERT_EQ(cropped.notes.size(), 1u);
    EXPECT_NE(cropped.notes[0].find("rung 1080p (1920x1080) made at the source's own 1912x1076"), std::string::npos)
        << cropped.notes[0];
    EXPECT_EQ(cropped.ladder.rungs[0].bitrate_kbps, 4500);  // the tier's rate

    // A shade wider than 16:9: the box's long side, then the source's own.
    const auto wide = fit_to_source(default_ladder(), 1916, 1076);
    EXPECT_EQ(fitted_sizes(wide.ladder), (std::vector<FittedSize>{{"1080p", 1916, 1076},
                                                    {"720p", 1280, 718},
                                                    {"540p", 960, 540},
                                                    {"360p", 640, 360}}));

    // 4:3 cropped by four lines; an odd size is made even.
    const auto narrow = fit_to_source(default_ladder(), 1441, 1077);
    ASSERT_FALSE(narrow.ladder.rungs.empty());
    EXPECT_EQ(fitted_sizes(narrow.ladder)[0], (FittedSize{"1080p", 1440, 1076}));
}

TEST(FitToSource, ASourceReallySmallerThanATierStillLosesIt) {
    // 1856x1044 is 3.3% short of 1080p: not a crop of it.
    const auto fitted = fit_to_source(default_ladder(), 1856, 1044);
    ASSERT_FALSE(fitted.ladder.rungs.empty());
    EXPECT_EQ(fitted.ladder.rungs[0].name, "720p");
    ASSERT_EQ(fitted.notes.size(), 1u);
    EXPECT_NE(fitted.notes[0].find("rung 1080p (1920x1080) dropped"), std::string::npos) << fitted.notes[0];
}

TEST(FitToSource, AnExplicitSizeIsNeverMadeNearTheSource) {
    LadderSpec spec{{{"1080p", 1920, 1080, 4500, 0, 0}}};
    const auto fitted = fit_to_source(spec, 1916, 1076);
    // Every rung dropped: the one source-sized rung, named by its short side.
    EXPECT_EQ(fitted_sizes(fitted.ladder), (std::vector<FittedSize>{{"1076p", 1916, 1076}}));
}
