// Every CPU chunk is decoded before it is accepted (engine/check/chunk_decode):
// a whole chunk passes, and one whose packet was cut, whose frames are fewer
// than it was made of, or that SVT-AV1 2.3's thread race wrote, does not.
#include <gtest/gtest.h>

#include <dav1d/dav1d.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"
#include "engine/check/chunk_decode.hpp"
#include "engine/encode/backend/libavcodec_encoder.hpp"
#include "tests/unit/gradient_chunk.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace ladder::engine {
namespace {

namespace fs = std::filesystem;

constexpr int kSize = 64;
constexpr int kFrames = 8;


// The gradient encoded by the real SVT-AV1, as a CPU slot would.
EncodedChunk encoded_gradient() {
    ::setenv("SVT_LOG", "1", 0);  // SVT-AV1: errors only
    EncoderSettings s;
    s.width = kSize;
    s.height = kSize;
    s.bitrate_kbps = 200;
    s.preset = 12;
    gpu::EncoderSlot slot;
    slot.kind = gpu::DeviceKind::cpu;
    slot.set_encoder("libsvtav1");
    slot.threads = 1;
    slot.label = "cpu0:svt";
    const auto encoder = make_encoder_backend(slot, s);
    std::vector<EncodedChunk> back = encoder->send(test::gradient_chunk(0, kFrames, kSize), {});
    for (auto& c : encoder->finish({})) back.push_back(std::move(c));
    EXPECT_EQ(back.size(), 1u);
    return std::move(back.at(0));
}

// A chunk read back from a file: its packets and stream parameters.
EncodedChunk read_chunk(const fs::path& file) {
    AVFormatContext* raw = nullptr;
    av::check(avformat_open_input(&raw, file.c_str(), nullptr, nullptr), "opening " + file.string());
    av::InputFormatPtr input(raw);
    av::check(avformat_find_stream_info(input.get(), nullptr), "reading " + file.string());
    EncodedChunk c;
    av::CodecParametersPtr par = av::make_codec_parameters();
    av::check(avcodec_parameters_copy(par.get(), input->streams[0]->codecpar), "stream parameters");
    c.codecpar = std::move(par);
    for (;;) {
        av::PacketPtr p = av::make_packet();
        if (av_read_frame(input.get(), p.get()) < 0) break;
        c.packets.push_back(std::move(p));
    }
    return c;
}

fs::path source_dir() {
    const char* dir = std::getenv("LADDER_SOURCE_DIR");
    return fs::path(dir ? dir : LADDER_SOURCE_DIR_DEFAULT);
}

// Chunk 2 of a 320x180 rung that SVT-AV1 2.3 (Debian 13) encoded on two
// threads under load: 50 packets, one of which libaom refuses ("Corrupt frame
// detected ... Failed to decode tile data") and libdav1d 1.5 too.
fs::path svt23_chunk() { return source_dir() / "tests" / "unit" / "data" / "svt-av1-2.3-undecodable-chunk.mp4"; }

std::string why_not(const EncodedChunk& chunk, std::size_t frames) {
    return why_undecodable(chunk, frames, 2).value_or("");
}

TEST(ChunkDecode, AWholeChunkDecodesToItsFrames) {
    const EncodedChunk chunk = encoded_gradient();
    EXPECT_EQ(why_not(chunk, kFrames), "");
}

TEST(ChunkDecode, AChunkWithFewerFramesThanItWasMadeOfIsRefused) {
    const EncodedChunk chunk = encoded_gradient();
    EXPECT_EQ(why_not(chunk, kFrames + 1), "decodes to 8 frames, not 9");
}

TEST(ChunkDecode, AChunkWithACutPacketIsRefused) {
    EncodedChunk chunk = encoded_gradient();
    ASSERT_GE(chunk.packets.size(), 2u);
    AVPacket& second = *chunk.packets[1];
    ASSERT_GT(second.size, 16) << "a packet with tile data to cut";
    av_shrink_packet(&second, second.size / 2);
    EXPECT_NE(why_not(chunk, kFrames).find("does not decode"), std::string::npos);
}

// The fixture is what the check is for: the reference decoder refuses it.
TEST(ChunkDecode, TheChunkSvtAv1_2_3WroteIsCorrupt) {
    // Debian 12 and 13 build FFmpeg with libaom's decoder (validate --decode uses it).
    const AVCodec* aom = avcodec_find_decoder_by_name("libaom-av1");
    ASSERT_NE(aom, nullptr) << "this FFmpeg has no libaom decoder";
    const EncodedChunk chunk = read_chunk(svt23_chunk());
    ASSERT_EQ(chunk.packets.size(), 50u);
    av::CodecContextPtr ctx = av::make_codec_context(aom);
    av::check(avcodec_parameters_to_context(ctx.get(), chunk.codecpar.get()), "decoder parameters");
    av::check(avcodec_open2(ctx.get(), aom, nullptr), "opening libaom's decoder");
    int refused = 0, frames = 0;
    for (const auto& p : chunk.packets) {
        refused += avcodec_send_packet(ctx.get(), p.get()) < 0;
        av::FramePtr f = av::make_frame();
        while (avcodec_receive_frame(ctx.get(), f.get()) == 0) ++frames;
    }
    EXPECT_GE(refused, 1) << frames << " frames decoded";
}

// libdav1d 1.0 (Debian 12, the GPU bundle: both with SVT-AV1 1.4, whose
// race was never seen to corrupt a frame) decodes this frame without an
// error; 1.5 (Debian 13, the Docker image, with SVT-AV1 2.3) refuses it.
TEST(ChunkDecode, TheCheckRefusesTheChunkSvtAv1_2_3Wrote) {
    int major = 0, minor = 0;
    std::sscanf(dav1d_version(), "%d.%d", &major, &minor);
    if (major < 1 || (major == 1 && minor < 5))
        GTEST_SKIP() << "libdav1d " << dav1d_version() << " decodes this frame; 1.5 and newer refuse it";
    const EncodedChunk chunk = read_chunk(svt23_chunk());
    EXPECT_NE(why_not(chunk, 50).find("does not decode"), std::string::npos);
}

}  // namespace
}  // namespace ladder::engine
