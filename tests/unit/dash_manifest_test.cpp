#include "mux/dash_manifest.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace ladder::mux {
namespace {

DashManifest one_rung(DashTimeline timeline) {
    DashManifest m;
    m.duration_seconds = 10;
    m.max_segment_seconds = 2;
    DashVideoRepresentation v;
    v.id = "360p";
    v.folder = "360p";
    v.bandwidth = 800000;
    v.codecs = "av01.0.01M.08";
    v.width = 640;
    v.height = 360;
    v.frame_rate_num = 30000;
    v.frame_rate_den = 1001;
    v.timeline = std::move(timeline);
    m.video.push_back(v);
    return m;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(DashManifest, BackToBackSegmentsOfOneDurationAreOneRun) {
    const std::string mpd = render_dash_manifest(one_rung({30000, {{0, 60060}, {60060, 60060}, {120120, 60060}, {180180, 30030}}}));
    EXPECT_TRUE(contains(mpd, R"(<S t="0" d="60060" r="2" />)")) << mpd;
    EXPECT_TRUE(contains(mpd, R"(<S d="30030" />)")) << mpd;
    EXPECT_TRUE(contains(mpd, R"(frameRate="30000/1001")")) << mpd;
    EXPECT_TRUE(contains(mpd, R"(par="16:9")")) << mpd;
    EXPECT_TRUE(contains(mpd, R"(media="360p/seg_$Number%05d$.m4s")")) << mpd;
    EXPECT_TRUE(contains(mpd, R"(type="static")")) << mpd;
    EXPECT_FALSE(contains(mpd, "contentType=\"audio\"")) << "no audio set without audio";
}

TEST(DashManifest, AGapStartsANewRunWithItsTime) {
    const std::string mpd = render_dash_manifest(one_rung({25, {{0, 50}, {60, 50}}}));
    EXPECT_TRUE(contains(mpd, R"(<S t="0" d="50" />)")) << mpd;
    EXPECT_TRUE(contains(mpd, R"(<S t="60" d="50" />)")) << mpd;
}

TEST(DashManifest, NamesAreEscapedAsXml) {
    DashManifest m = one_rung({25, {{0, 50}}});
    m.video[0].id = "a&b<c>";
    const std::string mpd = render_dash_manifest(m);
    EXPECT_TRUE(contains(mpd, R"(id="a&amp;b&lt;c)")) << mpd;  // ">" may stay as it is in an attribute
}

TEST(DashManifest, RefusesAManifestWithoutVideoOrSegments) {
    EXPECT_THROW(render_dash_manifest(DashManifest{}), std::invalid_argument);
    EXPECT_THROW(render_dash_manifest(one_rung({25, {}})), std::invalid_argument);
}

TEST(DashManifest, Durations) {
    EXPECT_EQ(dash_duration(0), "PT0.000S");
    EXPECT_EQ(dash_duration(10.0271), "PT10.027S");
    EXPECT_EQ(dash_duration(62.5), "PT1M2.500S");
    EXPECT_EQ(dash_duration(3600 + 5), "PT1H0M5.000S");
    EXPECT_THROW(dash_duration(-1), std::invalid_argument);
}

}  // namespace
}  // namespace ladder::mux
