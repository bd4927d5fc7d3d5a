// End-to-end: a portrait source. A rung's number is its short side, so a
// 180x320 phone-shaped clip's "x90" rung is 90x160, not 50x90; a rung larger
// than the source's short side is dropped (never an upscale). Checked on the
// real binary's HLS and MP4 outputs with ffprobe and plain playlist parsing.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

constexpr long kFrames = 50;  // 2 s at 25 fps

struct Size {
    int width;
    int height;
    friend bool operator==(const Size&, const Size&) = default;
};

std::ostream& operator<<(std::ostream& os, const Size& s) { return os << s.width << "x" << s.height; }

fs::path portrait_clip() { return make_clip("portrait180x320", {180, 320, "25", 2.0, false, ""}); }

// Rung name -> RESOLUTION in the master playlist, one entry per variant.
std::map<std::string, std::string> master_resolutions(const fs::path& out) {
    std::map<std::string, std::string> by_rung;
    for (const auto& [uri, attrs] : read_playlist(out / "master.m3u8").stream_inf_by_uri)
        by_rung[fs::path(uri).parent_path().string()] = attribute(attrs, "RESOLUTION");
    return by_rung;
}

Size video_size(const fs::path& file) {
    const FileFacts f = probe(file);
    if (f.video.size() != 1) return {0, 0};
    return {f.video[0].width, f.video[0].height};
}

ProcessResult encode(const fs::path& src, const fs::path& out, const std::vector<std::string>& ladder_args) {
    std::vector<std::string> args{"encode",    src.string(), "-o",       out.string(), "--format", "hls,mp4",
                                  "--preset",  "12",         "--encoder", "svt",        "--segment-seconds", "1"};
    args.insert(args.end(), ladder_args.begin(), ladder_args.end());
    return run_ladder(args, {}, 240);
}

TEST(PortraitLadder, RungFormsNameTheShortSide) {
    const fs::path src = portrait_clip();
    ASSERT_EQ(video_size(src), (Size{180, 320})) << "the source is portrait";
    const fs::path out = fresh_dir("portrait-forms");
    // x180: the source's own short side; 0x90: the other derived form; x240:
    // beyond the source's short side (240x426 would be an upscale).
    const ProcessResult r =
        encode(src, out, {"--rung", "180p=x180@300", "--rung", "90p=0x90@100", "--rung", "240p=x240@400"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("rung 240p (240x426) dropped: the source is only 180x320 and ladder never upscales"),
              std::string::npos)
        << r.err;

    EXPECT_EQ(master_resolutions(out), (std::map<std::string, std::string>{{"180p", "180x320"}, {"90p", "90x160"}}));
    EXPECT_FALSE(fs::exists(out / "240p")) << "the upscaling rung writes nothing";
    EXPECT_FALSE(fs::exists(out / "240p.mp4"));
    const std::map<std::string, Size> expected{{"180p", {180, 320}}, {"90p", {90, 160}}};
    for (const auto& [rung, size] : expected) {
        SCOPED_TRACE(rung);
        const FileFacts f = probe(out / (rung + ".mp4"));
        ASSERT_EQ(f.video.size(), 1u);
        EXPECT_EQ((Size{f.video[0].width, f.video[0].height}), size);
        EXPECT_EQ(f.video[0].codec, "av1");
        EXPECT_EQ(f.video[0].frames, kFrames);
        EXPECT_EQ(video_size(out / rung / "init.mp4"), size) << "the HLS track's sample entry";
    }
    const ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

TEST(PortraitLadder, DefaultLadderOnASmallPortraitSourceKeepsItsSize) {
    const fs::path src = portrait_clip();
    const fs::path out = fresh_dir("portrait-default");
    // Every default rung (360p and up) is larger than the 180-pixel short
    // side: one rung at the source's size, named by that side.
    const ProcessResult r = encode(src, out, {});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("rung 360p (360x640) dropped"), std::string::npos) << r.err;
    EXPECT_EQ(master_resolutions(out), (std::map<std::string, std::string>{{"180p", "180x320"}}));
    EXPECT_EQ(video_size(out / "180p.mp4"), (Size{180, 320}));
}

}  // namespace
}  // namespace ladder::test
