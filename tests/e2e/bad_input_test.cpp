// Bad input gets one clear error line naming the file and exit code 2, and
// nothing is left behind that looks like a complete output.
#include <gtest/gtest.h>

#include <fstream>

#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

void expect_usage_error(const ProcessResult& r, const std::string& must_mention) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << "one error line: " << r.err;
    EXPECT_EQ(r.err.rfind("ladder: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(must_mention), std::string::npos) << "mentions " << must_mention << ": " << r.err;
}

void expect_no_outputs(const fs::path& dir) {
    if (!fs::exists(dir)) return;
    for (const auto& e : fs::recursive_directory_iterator(dir)) ADD_FAILURE() << "left behind: " << e.path();
}

const std::vector<std::string> kQuick{"--format", "mp4", "--rung", "120p=160x120@200", "--preset", "12"};

std::vector<std::string> encode_args(const fs::path& in, const fs::path& out, std::vector<std::string> extra = kQuick) {
    std::vector<std::string> a{"encode", in.string(), "-o", out.string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

TEST(BadInput, MissingFile) {
    const fs::path out = fresh_dir("bad-missing") / "out";
    auto r = run_ladder(encode_args("/nonexistent/clip.mp4", out));
    expect_usage_error(r, "/nonexistent/clip.mp4");
    EXPECT_NE(r.err.find("does not exist"), std::string::npos);
    EXPECT_FALSE(fs::exists(out));
}

TEST(BadInput, NotAMediaFile) {
    const fs::path dir = fresh_dir("bad-text");
    const fs::path txt = dir / "notes.txt";
    std::ofstream(txt) << "this is not a video\n";
    auto r = run_ladder(encode_args(txt, dir / "out"));
    expect_usage_error(r, txt.string());
    EXPECT_NE(r.err.find("not a media file"), std::string::npos);
    expect_no_outputs(dir / "out");
}

TEST(BadInput, ZeroByteFile) {
    const fs::path dir = fresh_dir("bad-empty");
    std::ofstream(dir / "empty.mp4").close();
    auto r = run_ladder(encode_args(dir / "empty.mp4", dir / "out"));
    expect_usage_error(r, "empty.mp4");
    expect_no_outputs(dir / "out");
}

TEST(BadInput, NoVideoStream) {
    const fs::path dir = fresh_dir("bad-audio-only");
    const fs::path audio = dir / "tone.m4a";
    auto gen = run_process({"ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac",
                            audio.string()});
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
    auto r = run_ladder(encode_args(audio, dir / "out"));
    expect_usage_error(r, audio.string());
    EXPECT_NE(r.err.find("no video stream"), std::string::npos);
    expect_no_outputs(dir / "out");
}

TEST(BadInput, UnwritableOutputDirectory) {
    const fs::path src = make_clip("bad-src", {160, 120, "25", 1.0, true, ""});
    // /proc refuses new directories even to root, unlike permission bits.
    auto r = run_ladder(encode_args(src, "/proc/ladder-cannot-write-here"));
    expect_usage_error(r, "/proc/ladder-cannot-write-here");
    // An output path that is a file.
    const fs::path dir = fresh_dir("bad-outfile");
    std::ofstream(dir / "file").close();
    auto r2 = run_ladder(encode_args(src, dir / "file"));
    expect_usage_error(r2, (dir / "file").string());
}

TEST(BadInput, ExistingOutputNeedsOverwrite) {
    const fs::path src = make_clip("bad-src", {160, 120, "25", 1.0, true, ""});
    const fs::path out = fresh_dir("bad-exists");
    ASSERT_EQ(run_ladder(encode_args(src, out)).exit_code, 0);
    const auto before = fs::last_write_time(out / "120p.mp4");
    const auto size = fs::file_size(out / "120p.mp4");
    auto r = run_ladder(encode_args(src, out));
    expect_usage_error(r, (out / "120p.mp4").string());
    EXPECT_NE(r.err.find("--overwrite"), std::string::npos);
    EXPECT_EQ(fs::last_write_time(out / "120p.mp4"), before) << "the existing output is untouched";
    EXPECT_EQ(fs::file_size(out / "120p.mp4"), size);
    std::vector<std::string> with_overwrite = kQuick;
    with_overwrite.push_back("--overwrite");
    EXPECT_EQ(run_ladder(encode_args(src, out, with_overwrite)).exit_code, 0);
}

TEST(BadInput, MalformedLadderJson) {
    const fs::path src = make_clip("bad-src", {160, 120, "25", 1.0, true, ""});
    const fs::path dir = fresh_dir("bad-json");
    const fs::path json = dir / "ladder.json";
    std::ofstream(json) << R"({"rungs": [{"name": "360p", "height": 360, "bitrate_kbps": 600},)";
    auto r = run_ladder(encode_args(src, dir / "out", {"--ladder", json.string()}));
    expect_usage_error(r, json.string());
    expect_no_outputs(dir / "out");

    std::ofstream(json, std::ios::trunc) << R"({"rungs": [{"name": "../escape", "height": 360, "bitrate_kbps": 600}]})";
    auto r2 = run_ladder(encode_args(src, dir / "out", {"--ladder", json.string()}));
    expect_usage_error(r2, "../escape");
}

TEST(BadInput, BadRungArgumentAndUnknownOption) {
    const fs::path src = make_clip("bad-src", {160, 120, "25", 1.0, true, ""});
    const fs::path dir = fresh_dir("bad-args");
    auto r = run_ladder(encode_args(src, dir / "out", {"--rung", "720p=1280by720"}));
    expect_usage_error(r, "720p=1280by720");
    auto r2 = run_ladder(encode_args(src, dir / "out", {"--no-such-option"}));
    EXPECT_EQ(r2.exit_code, 2);
    expect_no_outputs(dir / "out");
}

TEST(Cli, HelpExplainsEveryOption) {
    auto r = run_ladder({"encode", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* opt : {"--format", "--ladder", "--rung", "--encoder", "--policy", "--cpu-slots",
                            "--segment-seconds", "--audio", "--overwrite", "--preset", "--splice-check"})
        EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

}  // namespace
}  // namespace ladder::test

namespace ladder::test {
namespace {

TEST(BadInput, ExistingHlsLadderNeedsOverwrite) {
    const fs::path src = make_clip("bad-src", {160, 120, "25", 1.0, true, ""});
    const fs::path out = fresh_dir("bad-hls-exists");
    const std::vector<std::string> hls{"--rung", "120p=160x120@200", "--preset", "12"};
    ASSERT_EQ(run_ladder(encode_args(src, out, hls)).exit_code, 0);
    const std::string master_before = [&] {
        std::ifstream in(out / "master.m3u8");
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    auto r = run_ladder(encode_args(src, out, hls));
    expect_usage_error(r, "already exists");
    EXPECT_TRUE(fs::exists(out / "master.m3u8")) << "the existing ladder is untouched";
    std::vector<std::string> again = hls;
    again.push_back("--overwrite");
    EXPECT_EQ(run_ladder(encode_args(src, out, again)).exit_code, 0);
    EXPECT_EQ(run_ladder({"validate", out.string()}).exit_code, 0);
}

TEST(BadInput, RungBelowTheEncodersMinimumSize) {
    const fs::path src = make_clip("bad-src", {160, 120, "25", 1.0, true, ""});
    const fs::path out = fresh_dir("bad-tiny");
    auto r = run_ladder(encode_args(src, out, {"--rung", "60p=80x60@100"}));
    expect_usage_error(r, "rung 60p: 80x60 is below SVT-AV1's minimum of 64x64");
    expect_no_outputs(out);
}

TEST(BadInput, RungNamedAudioCollidesWithTheAudioFolder) {
    const fs::path src = make_clip("bad-src", {160, 120, "25", 1.0, true, ""});
    const fs::path out = fresh_dir("bad-audio-name");
    auto r = run_ladder(encode_args(src, out, {"--rung", "audio=160x120@200"}));
    expect_usage_error(r, "'audio'");
    expect_no_outputs(out);
}

}  // namespace
}  // namespace ladder::test
