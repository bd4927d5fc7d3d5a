// A source that opens and describes itself but of which no video frame
// decodes is bad input: exit 2 with what the decoder said, never a run
// failure blamed on a rung that got no chunk.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/source/decode_lanes.hpp"
#include "engine/base/errors.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

// FFV1 keeps its picture format in the container's codec header, so the
// source opens and describes itself; the noise filter then damages every
// byte of every frame, and every frame is refused (AVERROR_INVALIDDATA).
fs::path damaged_ffv1(const fs::path& dir) {
    const fs::path good = dir / "good.mkv";
    const fs::path bad = dir / "damaged.mkv";
    auto gen = run_process({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                            "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "ffv1", "-level", "3", "-slicecrc",
                            "1", good.string()});
    EXPECT_EQ(gen.exit_code, 0) << gen.err;
    auto noise = run_process({"ffmpeg", "-v", "error", "-y", "-i", good.string(), "-c", "copy", "-bsf:v",
                              "noise=amount=1", bad.string()});
    EXPECT_EQ(noise.exit_code, 0) << noise.err;
    return bad;
}

// Raw video whose header promises 640x480 frames while the file holds less
// than one: the decoder refuses the packet outright (AVERROR(EINVAL)).
fs::path short_raw_video(const fs::path& dir) {
    const fs::path yuv = dir / "one.yuv";
    const fs::path nut = dir / "short.nut";
    auto gen = run_process({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                            "testsrc2=size=320x240:rate=25:duration=0.04", "-f", "rawvideo", "-pix_fmt", "yuv420p",
                            yuv.string()});
    EXPECT_EQ(gen.exit_code, 0) << gen.err;
    auto mux = run_process({"ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-video_size", "640x480", "-pix_fmt",
                            "yuv420p", "-framerate", "25", "-i", yuv.string(), "-c", "copy", nut.string()});
    EXPECT_EQ(mux.exit_code, 0) << mux.err;
    return nut;
}

class NullSink : public engine::ProgressSink {};

// The pump's own contract, decided by the code: it throws InputError while
// its output channels are still open, so no consumer can see an empty,
// closed stream and fail first with an error of its own.
void expect_input_error_with_channels_open(const fs::path& source, const std::string& decoder_says) {
    auto input = engine::open_source(source);
    const engine::SourceInfo src = engine::describe_source(*input);
    engine::FrameChannel channel(8);
    NullSink progress;
    engine::DecodePump pump(*input, src, {&channel}, nullptr, progress);
    try {
        pump.run(std::stop_token{});
        ADD_FAILURE() << source << ": decoded " << pump.counters().frames_decoded << " frames";
    } catch (const engine::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no video frame could be decoded"), std::string::npos) << e.what();
        if (!decoder_says.empty()) {
            EXPECT_NE(std::string(e.what()).find(decoder_says), std::string::npos) << e.what();
        }
        EXPECT_FALSE(channel.closed()) << "the channels close only after the failure is recorded";
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not an input error: " << e.what();
    }
}

TEST(UndecodableSource, PumpFailsAsBadInputBeforeClosingItsChannels) {
    const fs::path dir = fresh_dir("undecodable-pump");
    // FFmpeg 7.1 decodes FFV1 with frame threads, whose complaints FFmpeg
    // prints itself (the capture sees the pump's thread only): the message
    // is checked where the decoder reports on the pump's thread.
    expect_input_error_with_channels_open(damaged_ffv1(dir), "");
    expect_input_error_with_channels_open(short_raw_video(dir), "Invalid buffer size");
}

void expect_exit_2(const fs::path& source, const fs::path& out, const std::string& decoder_says) {
    auto r = run_ladder({"encode", source.string(), "-o", out.string(), "--preset", "12"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("ladder: error: input " + source.string() + ": no video frame could be decoded"),
              std::string::npos)
        << r.err;
    if (!decoder_says.empty()) {
        EXPECT_NE(r.err.find(decoder_says), std::string::npos) << "the decoder's message: " << r.err;
    }
    EXPECT_EQ(r.err.find("no chunk was encoded"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out / "master.m3u8"));
}

// HLS, the default: every rung of the default ladder has a finalizer that
// would otherwise report "no chunk was encoded".
TEST(UndecodableSource, ExitsTwoWithTheDecodersMessage) {
    const fs::path dir = fresh_dir("undecodable-cli");
    const fs::path damaged = damaged_ffv1(dir);
    for (int i = 0; i < 5; ++i) expect_exit_2(damaged, dir / fmt::format("out-ffv1-{}", i), "");
    expect_exit_2(short_raw_video(dir), dir / "out-raw", "Invalid buffer size");
}

}  // namespace
}  // namespace ladder::test
