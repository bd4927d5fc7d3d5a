// Numbered images as the input (frames/img_%05d.png with --frame-rate):
// encoded frame for frame at the given rate, from any first number; a
// missing --frame-rate and a gap in the numbering are refused before
// anything is written; --audio-file gives the ladder a sound track; plan,
// shards and stitch give the frames of a one-process run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

const char* const kSequencePattern = "img_%05d.png";

// `count` frames of a moving 160x90 picture, numbered from `start`.
fs::path make_sequence_frames(const std::string& name, int count, int start, const std::string& pattern = kSequencePattern) {
    const fs::path dir = fresh_dir(name) / "frames";
    fs::create_directories(dir);
    const ProcessResult r =
        run_process({"ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=24", "-frames:v",
                     std::to_string(count), "-start_number", std::to_string(start), (dir / pattern).string()});
    if (r.exit_code != 0) throw std::runtime_error("making frames failed: " + r.err);
    return dir / pattern;
}

fs::path make_sequence_tone(const fs::path& file, double seconds) {
    const ProcessResult r = run_process({"ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                                         "sine=frequency=440:duration=" + std::to_string(seconds), "-ar", "48000",
                                         file.string()});
    if (r.exit_code != 0) throw std::runtime_error("making the tone failed: " + r.err);
    return file;
}

// PSNR of every frame of the file against the sequence's frame at the same
// position (both YUV 4:2:0; the images converted with BT.601, limited range,
// which is what ladder tags these sizes with; both sides then labelled with
// the file's colour properties, so that FFmpeg 7.x converts neither again:
// same_colour_as).
std::vector<double> psnr_per_frame_of_sequence(const fs::path& file, const fs::path& pattern, int start,
                                               const std::string& rate) {
    const fs::path stats = fresh_dir("psnr-" + file.parent_path().filename().string()) / "stats.log";
    const std::string colour = same_colour_as(file);
    const ProcessResult r = run_process(
        {"ffmpeg", "-hide_banner", "-nostats", "-c:v", "libdav1d", "-i", file.string(), "-framerate", rate,
         "-start_number", std::to_string(start), "-i", pattern.string(), "-filter_complex",
         "[1:v]scale=out_color_matrix=bt601:out_range=tv,format=yuv420p," + colour + "[ref];[0:v]format=yuv420p," +
             colour + "[enc];[enc][ref]psnr=stats_file=" + stats.string(),
         "-f", "null", "-"});
    if (r.exit_code != 0) throw std::runtime_error("PSNR measurement failed for " + file.string() + ": " + r.err);
    return psnr_stats_file(stats);
}

double sequence_mean(const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

double sequence_min(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

std::string sequence_stream_field(const fs::path& file, const std::string& field) {
    const ProcessResult r = run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                         "stream=" + field, "-of", "default=nw=1:nk=1", file.string()});
    std::string value = r.out;
    value.erase(std::remove(value.begin(), value.end(), '\n'), value.end());
    return value;
}

void expect_sequence_refused(const ProcessResult& r, const std::string& must_mention, const fs::path& out) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << "one error line: " << r.err;
    EXPECT_EQ(r.err.rfind("ladder: error: input ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(must_mention), std::string::npos) << "mentions " << must_mention << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << "nothing written";
}

const std::vector<std::string> kSequenceQuick{"--rung", "90p=160x90@400", "--preset", "12", "--progress", "plain"};

std::vector<std::string> sequence_args(std::vector<std::string> head, const std::vector<std::string>& tail = kSequenceQuick) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

TEST(ImageSequence, NumberedPngsBecomeALadderAtTheGivenRate) {
    const fs::path pattern = make_sequence_frames("seq-png", 48, 1);
    const fs::path out = pattern.parent_path().parent_path() / "out";
    const ProcessResult r = run_ladder(
        sequence_args({"encode", pattern.string(), "--frame-rate", "24", "-o", out.string(), "--format", "both"}), {}, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ProcessResult valid = run_ladder({"validate", out.string()});
    EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
    EXPECT_NE(read_text(out / "master.m3u8").find("FRAME-RATE=24.000"), std::string::npos);
    for (const fs::path& file : {out / "90p.mp4", out / "90p" / "index.m3u8"}) {
        SCOPED_TRACE(file.string());
        const FileFacts facts = probe(file);
        ASSERT_EQ(facts.video.size(), 1u);
        EXPECT_EQ(facts.video[0].frames, 48);
        EXPECT_NEAR(facts.duration, 2.0, 1e-3);
        EXPECT_TRUE(facts.audio.empty());
        EXPECT_EQ(decode_errors(file), "");
    }
    EXPECT_NEAR(probe(out / "90p.mp4").video[0].duration, 2.0, 1e-6);
    // RGB pictures made YUV by ladder: limited range, and tagged so.
    EXPECT_EQ(sequence_stream_field(out / "90p.mp4", "color_range"), "tv");
    const auto psnr = psnr_per_frame_of_sequence(out / "90p.mp4", pattern, 1, "24");
    ASSERT_EQ(psnr.size(), 48u);
    EXPECT_GE(sequence_mean(psnr), 32.0);
    EXPECT_GE(sequence_min(psnr), 28.0) << "a frame out of place falls far lower";
}

TEST(ImageSequence, StartsAtItsFirstNumberWhateverItIs) {
    // JPEG frames 1000..1023, numbered without padding.
    const fs::path pattern = make_sequence_frames("seq-jpeg", 24, 1000, "shot%d.jpg");
    const fs::path out = pattern.parent_path().parent_path() / "out";
    const ProcessResult r = run_ladder(
        sequence_args({"encode", pattern.string(), "--frame-rate", "23.976", "-o", out.string(), "--format", "mp4"}), {}, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const FileFacts facts = probe(out / "90p.mp4");
    ASSERT_EQ(facts.video.size(), 1u);
    EXPECT_EQ(facts.video[0].frames, 24);
    EXPECT_NEAR(facts.video[0].duration, 24 * 1001.0 / 24000.0, 1e-3);
    EXPECT_EQ(sequence_stream_field(out / "90p.mp4", "r_frame_rate"), "24000/1001");
    EXPECT_EQ(sequence_stream_field(out / "90p.mp4", "color_range"), "tv");
    const auto psnr = psnr_per_frame_of_sequence(out / "90p.mp4", pattern, 1000, "24000/1001");
    ASSERT_EQ(psnr.size(), 24u);
    EXPECT_GE(sequence_mean(psnr), 30.0);
}

TEST(ImageSequence, WithoutFrameRateIsRefused) {
    const fs::path pattern = make_sequence_frames("seq-no-rate", 3, 1);
    const fs::path out = pattern.parent_path().parent_path() / "out";
    const ProcessResult r = run_ladder(sequence_args({"encode", pattern.string(), "-o", out.string()}));
    expect_sequence_refused(r, "is an image sequence: pass --frame-rate (for example --frame-rate 24)", out);
}

TEST(ImageSequence, AGapInTheNumberingIsRefusedNamingTheMissingFrame) {
    const fs::path pattern = make_sequence_frames("seq-gap", 10, 1);
    fs::remove(pattern.parent_path() / "img_00006.png");
    const fs::path out = pattern.parent_path().parent_path() / "out";
    const ProcessResult r = run_ladder(sequence_args({"encode", pattern.string(), "--frame-rate", "24", "-o", out.string()}));
    expect_sequence_refused(r, "frame " + (pattern.parent_path() / "img_00006.png").string() + " is missing", out);
    EXPECT_NE(r.err.find("runs from img_00001.png to img_00010.png"), std::string::npos) << r.err;
}

TEST(ImageSequence, APatternThatMatchesNoFileIsRefused) {
    const fs::path pattern = make_sequence_frames("seq-none", 2, 1);
    const fs::path other = pattern.parent_path() / "frame_%04d.tif";
    const fs::path out = pattern.parent_path().parent_path() / "out";
    const ProcessResult r = run_ladder(sequence_args({"encode", other.string(), "--frame-rate", "24", "-o", out.string()}));
    expect_sequence_refused(r, "matches no file", out);
}

TEST(ImageSequence, AVideoFileRefusesFrameRate) {
    const fs::path clip = make_clip("seq-video", {160, 90, "25", 0.4, false, ""});
    const fs::path out = fresh_dir("seq-video-out") / "out";
    const ProcessResult r = run_ladder(sequence_args({"encode", clip.string(), "--frame-rate", "24", "-o", out.string()}));
    expect_sequence_refused(r, "--frame-rate is for image sequences only", out);
}

TEST(ImageSequence, AudioFileGivesTheLadderSoundAsLongAsTheVideo) {
    const fs::path pattern = make_sequence_frames("seq-audio", 48, 1);
    const fs::path tone = make_sequence_tone(pattern.parent_path().parent_path() / "tone.wav", 3.0);
    const fs::path out = pattern.parent_path().parent_path() / "out";
    const ProcessResult r = run_ladder(sequence_args({"encode", pattern.string(), "--frame-rate", "24", "--audio-file",
                                             tone.string(), "-o", out.string(), "--format", "both"}),
                                       {}, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ProcessResult valid = run_ladder({"validate", out.string()});
    EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
    EXPECT_NE(read_text(out / "master.m3u8").find("#EXT-X-MEDIA:TYPE=AUDIO"), std::string::npos);
    const FileFacts mp4 = probe(out / "90p.mp4");
    ASSERT_EQ(mp4.video.size(), 1u);
    ASSERT_EQ(mp4.audio.size(), 1u);
    EXPECT_NEAR(mp4.video[0].duration, 2.0, 1e-6);
    EXPECT_NEAR(mp4.audio[0].duration, mp4.video[0].duration, 0.03) << "the 3 s tone is cut at the video's end";
    const FileFacts rendition = probe(out / "audio" / "aac" / "index.m3u8");
    ASSERT_EQ(rendition.audio.size(), 1u);
    EXPECT_NEAR(rendition.duration, 2.0, 0.05);
}

TEST(ImageSequence, PlanShardsAndStitchGiveTheFramesOfOneProcess) {
    // 96 frames, 24-frame chunks: shards 1 and 2 seek into the sequence.
    const fs::path pattern = make_sequence_frames("seq-shards", 96, 1);
    const fs::path root = pattern.parent_path().parent_path();
    const fs::path tone = make_sequence_tone(root / "tone.wav", 4.0);
    const std::vector<std::string> settings{"--frame-rate", "24", "--audio-file", tone.string(), "--rung",
                                            "90p=160x90@400", "--segment-seconds", "1", "--preset", "12",
                                            "--progress", "plain"};
    const fs::path work = root / "work";
    const ProcessResult plan = run_ladder(sequence_args({"plan", pattern.string(), "-o", work.string()}, settings), {}, 120);
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    const auto plan_json = nlohmann::json::parse(read_text(work / "plan.json"));
    EXPECT_EQ(plan_json["source"]["frames"], 96);
    EXPECT_EQ(plan_json["source"]["image_sequence"], true);
    EXPECT_EQ(plan_json["source"]["frame_rate"], nlohmann::json({24, 1}));
    EXPECT_EQ(plan_json["audio_file"], fs::absolute(tone).lexically_normal().string());

    const std::string plan_file = (work / "plan.json").string();
    for (const char* shard : {"0/3", "1/3", "2/3"}) {
        const ProcessResult r =
            run_ladder({"encode", "--plan", plan_file, "--shard", shard, "--progress", "plain"}, {}, 120);
        ASSERT_EQ(r.exit_code, 0) << shard << ": " << r.err;
    }
    // Each shard decoded only its own frames (chunks 0, 1, 2-3).
    for (const auto& [index, frames] : {std::pair{0, 24}, std::pair{1, 24}, std::pair{2, 48}}) {
        const auto report = nlohmann::json::parse(
            read_text(work / "reports" / ("shard-" + std::to_string(index) + "-of-3.json")));
        EXPECT_EQ(report["frames_normalized"].get<int>(), frames) << index;
    }
    const fs::path stitched = root / "stitched";
    const ProcessResult stitch =
        run_ladder({"stitch", work.string(), "-o", stitched.string(), "--format", "both", "--progress", "plain"}, {},
                   120);
    ASSERT_EQ(stitch.exit_code, 0) << stitch.err;
    const ProcessResult valid = run_ladder({"validate", stitched.string()});
    EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;

    // One process with the plan's rate control (plan's default, vbr).
    const fs::path single = root / "single";
    const ProcessResult one = run_ladder(
        sequence_args({"encode", pattern.string(), "-o", single.string(), "--format", "both", "--rate-control", "vbr"},
                      settings),
        {}, 120);
    ASSERT_EQ(one.exit_code, 0) << one.err;

    const FileFacts a = probe(stitched / "90p.mp4"), b = probe(single / "90p.mp4");
    ASSERT_EQ(a.video.size(), 1u);
    ASSERT_EQ(a.audio.size(), 1u);
    ASSERT_EQ(b.audio.size(), 1u);
    EXPECT_EQ(a.video[0].frames, 96);
    EXPECT_EQ(a.video[0].frames, b.video[0].frames);
    EXPECT_NEAR(a.video[0].duration, b.video[0].duration, 1e-6);
    EXPECT_NEAR(a.audio[0].duration, b.audio[0].duration, 0.03);
    EXPECT_NEAR(a.audio[0].duration, a.video[0].duration, 0.03);
    EXPECT_EQ(key_frame_indexes(stitched / "90p.mp4"), (std::vector<long>{0, 24, 48, 72}));
    EXPECT_EQ(key_frame_indexes(stitched / "90p.mp4"), key_frame_indexes(single / "90p.mp4"));
    // The same frames at the same positions: frames of this picture one
    // position apart are about 22 dB apart, far below what an encoded frame
    // in its place gets (above 40 dB at this rate). The means differ by the
    // rate control's choices (SVT-AV1 with threads, per-chunk rate
    // feedback), not by frames.
    const auto sharded = psnr_per_frame_of_sequence(stitched / "90p.mp4", pattern, 1, "24");
    const auto whole = psnr_per_frame_of_sequence(single / "90p.mp4", pattern, 1, "24");
    ASSERT_EQ(sharded.size(), 96u);
    ASSERT_EQ(whole.size(), 96u);
    std::printf("[ metric   ] per-frame PSNR: sharded min %.2f mean %.2f dB, one process min %.2f mean %.2f dB\n",
                sequence_min(sharded), sequence_mean(sharded), sequence_min(whole), sequence_mean(whole));
    for (std::size_t i = 0; i < sharded.size(); ++i) EXPECT_GT(sharded[i], 32.0) << "frame " << i;
    EXPECT_GT(sequence_min(whole), 32.0);
    EXPECT_NEAR(sequence_mean(sharded), sequence_mean(whole), 4.0);
}

}  // namespace
}  // namespace ladder::test
