// One encoder session over consecutive chunks of a rung (SVT-AV1; libaom
// keeps one chunk per session): every chunk comes
// back whole, starting with a key frame that carries a sequence header,
// with its own av1C; chunks that do not follow each other are refused.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"
#include "engine/encode/backend/libavcodec_encoder.hpp"
#include "engine/encode/backend/session_driver.hpp"
#include "mux/av1_sequence_header.hpp"
#include "tests/unit/gradient_chunk.hpp"

namespace ladder::engine {
namespace {

constexpr int kSessionSize = 64;  // SVT-AV1's smallest

RawChunk session_gradient_chunk(int index, int frames) { return test::gradient_chunk(index, frames, kSessionSize); }

EncoderSettings session_settings() {
    ::setenv("SVT_LOG", "1", 0);  // SVT-AV1: errors only
    EncoderSettings s;
    s.width = kSessionSize;
    s.height = kSessionSize;
    s.bitrate_kbps = 200;
    s.preset = 12;
    return s;
}

gpu::EncoderSlot session_cpu_slot(const std::string& encoder) {
    gpu::EncoderSlot slot;
    slot.kind = gpu::DeviceKind::cpu;
    slot.set_encoder(encoder);
    slot.threads = 1;
    slot.label = "cpu0:test";
    return slot;
}

int key_frames_in(const EncodedChunk& c) {
    int n = 0;
    for (const auto& p : c.packets) n += (p->flags & AV_PKT_FLAG_KEY) != 0;
    return n;
}

class EncoderSession : public ::testing::TestWithParam<std::string> {};

TEST_P(EncoderSession, EveryChunkComesBackWholeAndStartsWithAKeyFrameAndSequenceHeader) {
    constexpr int kFrames = 8;
    constexpr int kChunks = 4;
    const auto encoder = make_encoder_backend(session_cpu_slot(GetParam()), session_settings());
    std::vector<RawChunk> sent;
    std::vector<EncodedChunk> back;
    for (int k = 0; k < kChunks; ++k) {
        sent.push_back(session_gradient_chunk(k, kFrames));
        for (auto& c : encoder->send(sent.back(), {})) back.push_back(std::move(c));
    }
    for (auto& c : encoder->finish({})) back.push_back(std::move(c));

    ASSERT_EQ(back.size(), static_cast<std::size_t>(kChunks));
    for (int k = 0; k < kChunks; ++k) {
        const EncodedChunk& c = back[static_cast<std::size_t>(k)];
        SCOPED_TRACE("chunk " + std::to_string(k));
        EXPECT_EQ(c.index, k);
        ASSERT_EQ(c.packets.size(), static_cast<std::size_t>(kFrames));
        for (int i = 0; i < kFrames; ++i) EXPECT_EQ(c.packets[static_cast<std::size_t>(i)]->pts, k * kFrames + i);
        const AVPacket& first = *c.packets.front();
        EXPECT_TRUE(first.flags & AV_PKT_FLAG_KEY);
        EXPECT_TRUE(mux::parse_sequence_header({first.data, static_cast<std::size_t>(first.size)}));
        EXPECT_EQ(key_frames_in(c), 1) << "one key frame per chunk, at its start";
        ASSERT_TRUE(c.codecpar);
        EXPECT_GT(c.codecpar->extradata_size, 0);
        EXPECT_GT(c.bytes, 0u);
    }
}

TEST_P(EncoderSession, AChunkThatDoesNotFollowTheLastOneIsRefused) {
    const auto encoder = make_encoder_backend(session_cpu_slot(GetParam()), session_settings());
    const RawChunk first = session_gradient_chunk(0, 4);
    const RawChunk third = session_gradient_chunk(2, 4);
    encoder->send(first, {});
    EXPECT_THROW(encoder->send(third, {}), RunError);
}

// libaom encodes one chunk per session (EncoderTraits::keeps_sessions).
INSTANTIATE_TEST_SUITE_P(CpuEncoders, EncoderSession, ::testing::Values("libsvtav1"),
                         [](const auto&) { return "Svt"; });

// Packets of one stream split at frames where the encoder made no key
// frame: the chunk that starts mid-GOP is an error, not a segment.
TEST(SessionChunks, AChunkThatDoesNotStartWithAKeyFrameIsAnError) {
    LibavcodecEncoder encoder(session_cpu_slot("libsvtav1"), session_settings());
    const RawChunk one = session_gradient_chunk(0, 8);  // a GOP of 8 frames
    std::vector<av::PacketPtr> packets;
    ChunkFrames frames;
    frames.count = 8;
    std::size_t next = 0;
    frames.next = [&] { return av::ref_frame(one.frames.at(next++).get()); };
    const PacketSink keep = [&](av::PacketPtr p) { packets.push_back(std::move(p)); };
    encoder.feed(frames, keep, {});
    encoder.flush(keep, {});
    ASSERT_EQ(packets.size(), 8u);

    SessionChunks split("libsvtav1", "cpu0:test");
    split.expect(0, 0, 0, 4);
    split.expect(0, 1, 4, 4);
    for (auto& p : packets) split.add(std::move(p));
    EXPECT_THROW(split.take_rest(*encoder.stream_parameters()), RunError);
}

TEST(SessionChunks, APacketOutsideTheChunksSentIsAnError) {
    SessionChunks split("libsvtav1", "cpu0:test");
    split.expect(0, 3, 12, 4);
    av::PacketPtr p = av::make_packet();
    p->pts = 16;
    EXPECT_THROW(split.add(std::move(p)), RunError);
    EXPECT_THROW(split.expect(0, 5, 20, 4), RunError) << "chunk 5 does not follow chunk 3";
}

}  // namespace
}  // namespace ladder::engine
