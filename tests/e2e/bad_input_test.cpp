// Bad input gets one clear error line naming the file and exit code 2, and
// nothing is left behind that looks like a complete output. Inputs that are
// not regular files (a FIFO, a device, a socket) are refused without being
// opened, whichever input they are.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <tuple>
#include <initializer_list>

#include "corpus_media.hpp"
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

// Segments shorter than one AAC frame of the audio (128 ms at 8 kHz) left
// some audio segment empty and failed the run after every rung was encoded
// (exit 1); now they are refused before anything is written, at any rate.
TEST(BadInput, SegmentsShorterThanAnAacFrameAreRefusedBeforeEncoding) {
    const fs::path dir = fresh_dir("bad-short-segments");
    for (const auto& [rate, seconds, shortest] :
         std::initializer_list<std::tuple<const char*, const char*, const char*>>{{"8000", "0.1", "0.160"},
                                                                                 {"11025", "0.08", "0.120"}}) {
        SCOPED_TRACE(rate);
        const fs::path src = dir / (std::string("audio-") + rate + ".mkv");
        ffmpeg(join({{"-f", "lavfi", "-i", testsrc("160x120", "25", 1.0), "-f", "lavfi", "-i",
                      std::string("sine=duration=1:sample_rate=") + rate},
                     kH264,
                     {"-pix_fmt", "yuv420p", "-c:a", "pcm_s16le", src.string()}}));
        const fs::path out = dir / (std::string("out-") + rate);
        auto r = run_ladder(encode_args(src, out, {"--rung", "120p=160x120@200", "--preset", "12",
                                                   "--segment-seconds", seconds}));
        expect_usage_error(r, std::string("AAC at ") + rate + " Hz");
        EXPECT_NE(r.err.find(std::string("use --segment-seconds ") + shortest + " or longer"), std::string::npos)
            << r.err;
        expect_no_outputs(out);
        // The length it names works.
        r = run_ladder(encode_args(src, out, {"--rung", "120p=160x120@200", "--preset", "12",
                                              "--segment-seconds", shortest}));
        EXPECT_EQ(r.exit_code, 0) << r.err;
    }
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

namespace ladder::test {
namespace {

// Every input ladder opens, given as something that is not a regular file:
// a FIFO (named pipe) with no writer, a character device, a socket. Each is
// refused at once: exit code 2, one line naming it and saying what to do,
// nothing written. Opening a FIFO would wait for a writer, with SIGTERM
// unable to end the wait (it once did, for 761 s), so a 20 s watchdog
// catches a run that opens one.
struct NonRegularInput {
    std::string name;
    // Makes the odd file in a folder of its own (which also holds the clip
    // source.mp4) and returns the command line.
    std::function<std::vector<std::string>(const fs::path& dir)> args;
    // What the message says, given the folder: the file and what it is.
    std::function<std::string(const fs::path& dir)> says;
    int exit_code = 2;
};

constexpr const char* kReadRegularFilesOnly = "ladder reads regular files only; write the stream to a file first";

void make_fifo(const fs::path& path) {
    if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path.string());
}

void make_socket(const fs::path& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.string().size() >= sizeof address.sun_path) throw std::runtime_error("socket path too long: " + path.string());
    std::strcpy(address.sun_path, path.c_str());
    const int bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
    ::close(fd);  // the socket file stays
    if (bound != 0) throw std::runtime_error("bind " + path.string());
}

// Frames img_001.png ... img_012.png, and img_013.png a FIFO: the image
// sequence demuxer would open it for the last frame.
void make_sequence_ending_in_a_fifo(const fs::path& folder) {
    fs::create_directories(folder);
    const auto gen = run_process({"ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                                  "testsrc2=size=160x120:rate=24:duration=0.5", (folder / "img_%03d.png").string()});
    if (gen.exit_code != 0) throw std::runtime_error("ffmpeg: " + gen.err);
    make_fifo(folder / "img_013.png");
}

std::vector<std::string> quick_encode(const fs::path& in, const fs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> a = encode_args(in, out);
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

std::string fifo_named(const std::string& role, const fs::path& file) {
    return role + " " + file.string() + " is a FIFO (named pipe): " + kReadRegularFilesOnly;
}

const std::vector<NonRegularInput>& non_regular_inputs() {
    static const std::vector<NonRegularInput> cases{
        {"EncodeInputFifo",
         [](const fs::path& d) {
             make_fifo(d / "odd.mp4");
             return quick_encode(d / "odd.mp4", d / "out");
         },
         [](const fs::path& d) { return fifo_named("input", d / "odd.mp4"); }},
        {"EncodeInputCharacterDevice", [](const fs::path& d) { return quick_encode("/dev/zero", d / "out"); },
         [](const fs::path&) { return std::string("input /dev/zero is a character device: ") + kReadRegularFilesOnly; }},
        {"EncodeInputSocket",
         [](const fs::path& d) {
             make_socket(d / "odd.sock");
             return quick_encode(d / "odd.sock", d / "out");
         },
         [](const fs::path& d) { return "input " + (d / "odd.sock").string() + " is a socket: " + kReadRegularFilesOnly; }},
        {"PlanInputFifo",
         [](const fs::path& d) {
             make_fifo(d / "odd.mp4");
             return std::vector<std::string>{"plan", (d / "odd.mp4").string(), "-o", (d / "out").string()};
         },
         [](const fs::path& d) { return fifo_named("input", d / "odd.mp4"); }},
        {"ImageSequenceFrameFifo",
         [](const fs::path& d) {
             make_sequence_ending_in_a_fifo(d / "seq");
             return quick_encode(d / "seq" / "img_%03d.png", d / "out", {"--frame-rate", "24"});
         },
         [](const fs::path& d) {
             return fifo_named("input " + (d / "seq" / "img_%03d.png").string() + ": frame", d / "seq" / "img_013.png");
         }},
        {"AudioFileFifo",
         [](const fs::path& d) {
             make_fifo(d / "odd.wav");
             return quick_encode(d / "source.mp4", d / "out", {"--audio-file", (d / "odd.wav").string()});
         },
         [](const fs::path& d) { return fifo_named("--audio-file", d / "odd.wav"); }},
        {"LadderFileFifo",
         [](const fs::path& d) {
             make_fifo(d / "odd.json");
             return std::vector<std::string>{"encode", (d / "source.mp4").string(), "-o", (d / "out").string(),
                                             "--ladder", (d / "odd.json").string()};
         },
         [](const fs::path& d) { return fifo_named("ladder file", d / "odd.json"); }},
        {"PlanFileFifo",
         [](const fs::path& d) {
             make_fifo(d / "odd.json");
             return std::vector<std::string>{"encode", "--plan", (d / "odd.json").string(), "--shard", "0/1"};
         },
         [](const fs::path& d) { return fifo_named("the plan", d / "odd.json"); }},
        {"StitchPlanFifo",
         [](const fs::path& d) {
             fs::create_directories(d / "work");
             make_fifo(d / "work" / "plan.json");
             return std::vector<std::string>{"stitch", (d / "work").string(), "-o", (d / "out").string()};
         },
         [](const fs::path& d) { return fifo_named("the plan", d / "work" / "plan.json"); }},
        {"ReportFifo",
         [](const fs::path& d) {
             make_fifo(d / "odd.json");
             return std::vector<std::string>{"report", (d / "odd.json").string(), "--html",
                                             (d / "out" / "report.html").string()};
         },
         [](const fs::path& d) {
             return (d / "odd.json").string() +
                    ": is a FIFO (named pipe): ladder reads regular files only; write the report to a file first";
         }},
        // validate reads a ladder's files through engine/check/ladder_path.*, which
        // never opened anything but a regular file: a problem line, exit 1.
        {"ValidateMasterPlaylistFifo",
         [](const fs::path& d) {
             fs::create_directories(d / "ladder");
             make_fifo(d / "ladder" / "master.m3u8");
             return std::vector<std::string>{"validate", (d / "ladder").string()};
         },
         [](const fs::path& d) { return (d / "ladder" / "master.m3u8").string() + ": not a regular file: not read"; },
         1},
    };
    return cases;
}

// Test names and failure messages show the case's name, not its bytes.
void PrintTo(const NonRegularInput& c, std::ostream* os) { *os << c.name; }

class NonRegularInputs : public ::testing::TestWithParam<NonRegularInput> {};

TEST_P(NonRegularInputs, AreRefusedAtOnceWithOneLine) {
    const NonRegularInput& c = GetParam();
    const fs::path dir = fresh_dir("non-regular-" + c.name);
    fs::copy_file(make_clip("bad-src", {160, 120, "25", 1.0, true, ""}), dir / "source.mp4");
    const ProcessResult r = run_ladder(c.args(dir), {}, 20);
    ASSERT_FALSE(r.timed_out) << "ladder waited on a file that is not a regular one: " << r.err;
    EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
    // validate lists its problems on stdout.
    EXPECT_NE((r.out + r.err).find(c.says(dir)), std::string::npos) << "says: " << c.says(dir) << "\n" << r.out << r.err;
    if (c.exit_code == 2) {
        EXPECT_EQ(count_lines(r.err), 1) << "one error line: " << r.err;
        EXPECT_EQ(r.err.rfind("ladder: error: ", 0), 0u) << r.err;
    }
    expect_no_outputs(dir / "out");
}

INSTANTIATE_TEST_SUITE_P(BadInput, NonRegularInputs, ::testing::ValuesIn(non_regular_inputs()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ladder::test
