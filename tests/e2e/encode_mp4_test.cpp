// End-to-end: encode generated clips with the real binary, then check every
// rung with ffprobe and ffmpeg + libdav1d (independent of ladder's code).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

struct RungExpect {
    std::string name;
    int width;
    int height;
};

void expect_valid_rung(const fs::path& file, const fs::path& source, const RungExpect& rung, long source_frames,
                       double frame_rate, long chunk_frames, double source_audio_duration) {
    SCOPED_TRACE(file.string());
    ASSERT_TRUE(fs::exists(file));
    FileFacts f = probe(file);
    ASSERT_EQ(f.video.size(), 1u);
    const StreamFacts& v = f.video[0];
    EXPECT_EQ(v.codec, "av1");
    EXPECT_EQ(v.width, rung.width);
    EXPECT_EQ(v.height, rung.height);
    EXPECT_EQ(v.frames, source_frames) << "every rung has the source's frame count";
    EXPECT_NEAR(v.duration, source_frames / frame_rate, 1.0 / frame_rate + 1e-6) << "duration within one frame";

    std::vector<long> expected_keys;
    for (long k = 0; k < source_frames; k += chunk_frames) expected_keys.push_back(k);
    EXPECT_EQ(key_frame_indexes(file), expected_keys) << "a key frame at every chunk start, nowhere else";

    EXPECT_EQ(decode_errors(file), "") << "libdav1d decodes the rung without error";
    const double psnr = psnr_against_source(file, source, rung.width, rung.height);
    std::printf("[ metric   ] %s PSNR %.2f dB\n", rung.name.c_str(), psnr);
    EXPECT_GE(psnr, 30.0);

    EXPECT_TRUE(moov_before_mdat(file)) << "faststart: moov before mdat";
    EXPECT_EQ(av1c_vs_inband_differences(file), std::vector<std::string>{}) << "av1C holds the in-band sequence header";
    if (source_audio_duration > 0) {
        ASSERT_EQ(f.audio.size(), 1u);
        EXPECT_EQ(f.audio[0].codec, "aac");
        EXPECT_NEAR(f.audio[0].duration, source_audio_duration, 0.050) << "audio duration within 50 ms";
    } else {
        EXPECT_TRUE(f.audio.empty());
    }
}

void check_no_leftovers(const fs::path& dir) {
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find(".part"), std::string::npos) << e.path();
}

TEST(EncodeMp4, TwoRungsSvtWithAudio) {
    const fs::path src = make_clip("svt320", {320, 240, "25", 3.0, true, ""});
    const fs::path out = fresh_dir("svt-two-rungs");
    FileFacts sf = probe(src);
    ASSERT_EQ(sf.video[0].frames, 75);
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--rung",
                                  "240p=320x240@600", "--rung", "120p=160x120@200", "--encoder", "svt",
                                  "--segment-seconds", "1", "--preset", "12", "--cpu-slots", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const RungExpect& rung : {RungExpect{"240p", 320, 240}, RungExpect{"120p", 160, 120}})
        expect_valid_rung(out / (rung.name + ".mp4"), src, rung, 75, 25.0, 25, sf.audio[0].duration);
    check_no_leftovers(out);
}

TEST(EncodeMp4, TwoRungsAomNtscRate) {
    // 29.97 fps and 1 s segments: 30-frame chunks, a short last chunk
    // (45 frames: 30 + 15). libaom is the slowest encoder here, so the clip
    // is short.
    const fs::path src = make_clip("aom-ntsc", {320, 180, "30000/1001", 1.5, true, ""});
    const fs::path out = fresh_dir("aom-two-rungs");
    FileFacts sf = probe(src);
    const long frames = sf.video[0].frames;
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--rung", "180p=320x180@500",
                                  "--rung", "90p=x90@150", "--encoder", "aom", "--segment-seconds", "1",
                                  "--preset", "8", "--cpu-slots", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const RungExpect& rung : {RungExpect{"180p", 320, 180}, RungExpect{"90p", 160, 90}})
        expect_valid_rung(out / (rung.name + ".mp4"), src, rung, frames, 30000.0 / 1001.0, 30, sf.audio[0].duration);
}

TEST(EncodeMp4, VideoOnlySourceAndAudioNone) {
    const fs::path src = make_clip("noaudio", {256, 144, "24", 2.0, false, ""});
    const fs::path out = fresh_dir("video-only");
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--rung", "144p=256x144@300",
                                  "--preset", "12", "--audio", "none"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_valid_rung(out / "144p.mp4", src, {"144p", 256, 144}, 48, 24.0, 48, 0);
}

TEST(EncodeMp4, DefaultLadderIsTrimmedToTheSource) {
    // 640x360 source: the default ladder keeps only 360p, at 640x360.
    const fs::path src = make_clip("src360", {640, 360, "25", 2.0, true, ""});
    const fs::path out = fresh_dir("default-ladder");
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--preset", "12"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(out)) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files, (std::vector<std::string>{"360p.mp4", "report.json"})) << "the rung and the run's report";
    FileFacts f = probe(out / "360p.mp4");
    EXPECT_EQ(f.video[0].width, 640);
    EXPECT_EQ(f.video[0].height, 360);
    EXPECT_NE(r.err.find("1080p"), std::string::npos) << "the dropped rungs are reported: " << r.err;
}

// A 2.40:1 source at 640x266 fills the 360p tier's 640x360 box across:
// its rung is 360p at its own size (the short-side rule asked 864x360 of
// it, dropped every rung and made one "266p").
TEST(EncodeMp4, AWideSourceKeepsTheTierWhoseBoxItFills) {
    const fs::path src = make_clip("src266", {640, 266, "25", 2.0, false, ""});
    const fs::path out = fresh_dir("wide-ladder");
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--preset", "12"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(fs::exists(out / "360p.mp4")) << r.err;
    FileFacts f = probe(out / "360p.mp4");
    EXPECT_EQ(f.video[0].width, 640);
    EXPECT_EQ(f.video[0].height, 266);
    EXPECT_EQ(f.video[0].frames, 50);
    EXPECT_NE(r.err.find("rung 540p (960x400) dropped"), std::string::npos) << r.err;
}

TEST(EncodeMp4, ASourceAFewLinesShortOfATierKeepsItAtItsOwnSize) {
    // 636x358: a 640x360 picture cropped by two lines on each side.
    const fs::path src = make_clip("src358", {636, 358, "25", 2.0, false, ""});
    const fs::path out = fresh_dir("near-tier-ladder");
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--preset", "12"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(fs::exists(out / "360p.mp4")) << r.err;
    FileFacts f = probe(out / "360p.mp4");
    EXPECT_EQ(f.video[0].width, 636);
    EXPECT_EQ(f.video[0].height, 358);
    EXPECT_EQ(f.video[0].frames, 50);
    EXPECT_NE(r.err.find("rung 360p (640x360) made at the source's own 636x358"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ladder::test
