// The session driver (engine/encode/backend/session_driver.*) over a fake
// encoder: the packets of a session are split back into its chunks, a chunk
// that does not start with a key frame is refused, the flush gives the rest
// back and ends the session, and the protocol calls come in order. The fake
// hands back a real SVT-AV1 key frame with its sequence header at each
// chunk start (the driver parses it and takes av1C from it) and dummy
// packets for the other frames, `lag` frames late like a look-ahead.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"
#include "engine/encode/backend/session_driver.hpp"
#include "av1_test_encoder.hpp"
#include "gradient_chunk.hpp"

namespace ladder::engine {
namespace {

constexpr int kSize = 64;

const test::Av1Sample& key_frame() {
    static const test::Av1Sample sample = test::encode_av1("libsvtav1", kSize, kSize);
    return sample;
}

struct FakeLog {
    std::vector<std::string> calls;  // "open 0", "next 1", "next 3 anywhere", "flush", "close", "abandon"
    int frames = 0;
};

class FakeEncoder final : public SessionEncoder {
public:
    FakeEncoder(FakeLog& log, int lag) : log_(log), lag_(lag) {}

    // Frames whose packet is not a key frame although a chunk starts there.
    std::vector<std::int64_t> no_key_at;
    // A packet for a frame nobody sent.
    bool stray_packet = false;
    // Whether it opens a session before its first chunk (open_ahead).
    bool opens_ahead = false;

    void open(const ChunkHeader& chunk, const AVFrame& first) override {
        EXPECT_EQ(first.width, kSize);
        log_.calls.push_back("open " + std::to_string(chunk.index));
        open_ = true;
        next_frame_ = chunk.first_frame;
        stream_ = av::make_codec_parameters();
        stream_->codec_type = AVMEDIA_TYPE_VIDEO;
        stream_->codec_id = AV_CODEC_ID_AV1;
        stream_->width = kSize;
        stream_->height = kSize;
    }
    void next_chunk(const ChunkHeader& chunk, bool anywhere) override {
        log_.calls.push_back("next " + std::to_string(chunk.index) + (anywhere ? " anywhere" : ""));
        if (anywhere) next_frame_ = chunk.first_frame;
    }
    void send(av::FramePtr frame, bool chunk_start, const PacketSink&, std::stop_token) override {
        ASSERT_TRUE(frame);
        ++log_.frames;
        const std::int64_t pts = stray_packet ? next_frame_ + 100 : next_frame_;
        ++next_frame_;
        held_.push_back({pts, chunk_start && std::find(no_key_at.begin(), no_key_at.end(), pts) == no_key_at.end()});
    }
    void drain(const PacketSink& sink, std::stop_token) override {
        while (static_cast<int>(held_.size()) > lag_) out(sink);
    }
    void flush(const PacketSink& sink, std::stop_token) override {
        log_.calls.push_back("flush");
        while (!held_.empty()) out(sink);
    }
    void close() override {
        log_.calls.push_back("close");
        open_ = false;
    }
    void abandon() override {
        log_.calls.push_back("abandon");
        open_ = false;
        held_.clear();
    }
    bool is_open() const override { return open_; }
    const AVCodecParameters* stream() const override { return open_ ? stream_.get() : nullptr; }
    void probe() override { log_.calls.push_back("probe"); }
    bool open_ahead() override {
        if (opens_ahead) log_.calls.push_back("ahead");
        return opens_ahead;
    }

private:
    struct Held {
        std::int64_t pts;
        bool key;
    };
    void out(const PacketSink& sink) {
        const Held h = held_.front();
        held_.pop_front();
        av::PacketPtr p = av::make_packet();
        if (h.key) {
            const auto& data = key_frame().first_packet;
            av::check(av_new_packet(p.get(), static_cast<int>(data.size())), "a packet");
            std::copy(data.begin(), data.end(), p->data);
            p->flags = AV_PKT_FLAG_KEY;
        } else {
            av::check(av_new_packet(p.get(), 8), "a packet");
            std::fill(p->data, p->data + 8, std::uint8_t{0x32});  // an OBU_FRAME header byte, never parsed
        }
        p->pts = h.pts;
        sink(std::move(p));
    }

    FakeLog& log_;
    int lag_;
    bool open_ = false;
    std::int64_t next_frame_ = 0;
    std::deque<Held> held_;
    av::CodecParametersPtr stream_;
};

RawChunk chunk(int index, int frames) { return test::gradient_chunk(index, frames, kSize); }

gpu::EncoderSlot slot(const std::string& encoder) {
    gpu::EncoderSlot s;
    s.label = "cpu0:fake";
    s.set_encoder(encoder);
    return s;
}

struct Driven {
    FakeLog log;
    FakeEncoder* fake = nullptr;
    std::unique_ptr<SessionDriver> driver;
};

std::unique_ptr<Driven> drive(const std::string& encoder, int lag) {
    auto d = std::make_unique<Driven>();
    auto fake = std::make_unique<FakeEncoder>(d->log, lag);
    d->fake = fake.get();
    d->driver = std::make_unique<SessionDriver>(std::move(fake), slot(encoder));
    return d;
}

std::vector<int> indices(const std::vector<EncodedChunk>& chunks) {
    std::vector<int> out;
    for (const auto& c : chunks) out.push_back(c.index);
    return out;
}

TEST(SessionDriver, PacketsAreSplitBackIntoTheirChunksInOrder) {
    ASSERT_TRUE(key_frame().first_packet_is_key);
    auto d = drive("libsvtav1", 2);  // two frames of look-ahead
    std::vector<RawChunk> sent;
    for (int k = 0; k < 3; ++k) sent.push_back(chunk(k, 4));
    EXPECT_TRUE(d->driver->send(sent[0], {}).empty()) << "2 of its 4 packets are out";
    EXPECT_EQ(indices(d->driver->send(sent[1], {})), std::vector<int>{0});
    EXPECT_EQ(indices(d->driver->send(sent[2], {})), std::vector<int>{1});
    const std::vector<EncodedChunk> rest = d->driver->finish({});
    ASSERT_EQ(indices(rest), std::vector<int>{2});
    const EncodedChunk& c = rest.front();
    EXPECT_EQ(c.first_frame, 8);
    EXPECT_EQ(c.frame_count, 4);
    ASSERT_EQ(c.packets.size(), 4u);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(c.packets[static_cast<std::size_t>(i)]->pts, 8 + i);
        EXPECT_EQ(c.packets[static_cast<std::size_t>(i)]->dts, 8 + i);
        EXPECT_EQ((c.packets[static_cast<std::size_t>(i)]->flags & AV_PKT_FLAG_KEY) != 0, i == 0);
    }
    ASSERT_TRUE(c.codecpar);
    EXPECT_GT(c.codecpar->extradata_size, 0) << "av1C from the chunk's key frame";
    EXPECT_EQ(c.slot_label, "cpu0:fake");
    EXPECT_EQ(c.encoder, "libsvtav1");
    EXPECT_EQ(d->log.frames, 12);
    EXPECT_EQ(d->log.calls, (std::vector<std::string>{"open 0", "next 1", "next 2", "flush", "close"}));
}

// A session opened ahead is not open to the driver until its first chunk:
// that chunk still opens it (the encoder goes on in the session it opened
// or opens another), then the session goes on as any other.
TEST(SessionDriver, ASessionOpenedAheadTakesItsFirstChunkAsAnOpen) {
    auto d = drive("libsvtav1", 0);
    EXPECT_FALSE(d->driver->open_ahead()) << "an encoder that cannot";
    EXPECT_TRUE(d->log.calls.empty());
    d->fake->opens_ahead = true;
    EXPECT_TRUE(d->driver->open_ahead());
    EXPECT_EQ(indices(d->driver->send(chunk(3, 4), {})), std::vector<int>{3});
    EXPECT_EQ(indices(d->driver->send(chunk(4, 4), {})), std::vector<int>{4});
    EXPECT_TRUE(d->driver->finish({}).empty());
    EXPECT_EQ(d->log.calls, (std::vector<std::string>{"ahead", "open 3", "next 4", "flush", "close"}));
}

TEST(SessionDriver, AChunkThatDoesNotStartWithAKeyFrameIsRefused) {
    auto d = drive("libsvtav1", 0);
    d->fake->no_key_at = {4};  // chunk 1's first frame
    EXPECT_EQ(indices(d->driver->send(chunk(0, 4), {})), std::vector<int>{0});
    try {
        d->driver->send(chunk(1, 4), {});
        FAIL() << "chunk 1 came back without a key frame";
    } catch (const RunError& e) {
        EXPECT_NE(std::string(e.what()).find("did not start chunk 1 with a key frame"), std::string::npos) << e.what();
    }
    EXPECT_EQ(d->log.calls.back(), "abandon") << "the failed session is the encoder's to end";
    EXPECT_TRUE(d->driver->finish({}).empty()) << "nothing is left of it";
}

TEST(SessionDriver, APacketForAFrameNotSentFailsTheSession) {
    auto d = drive("libsvtav1", 0);
    d->fake->stray_packet = true;
    EXPECT_THROW(d->driver->send(chunk(0, 4), {}), RunError);
    EXPECT_EQ(d->log.calls.back(), "abandon");
}

TEST(SessionDriver, TheFlushGivesTheRestBackAndTheNextChunkOpensANewSession) {
    auto d = drive("libsvtav1", 8);  // nothing comes out before the flush
    EXPECT_TRUE(d->driver->finish({}).empty()) << "no session: nothing to flush";
    EXPECT_TRUE(d->driver->send(chunk(0, 4), {}).empty());
    EXPECT_TRUE(d->driver->send(chunk(1, 4), {}).empty());
    EXPECT_EQ(indices(d->driver->finish({})), (std::vector<int>{0, 1}));
    EXPECT_TRUE(d->driver->send(chunk(5, 4), {}).empty()) << "a new session starts anywhere";
    EXPECT_EQ(indices(d->driver->finish({})), std::vector<int>{5});
    EXPECT_EQ(d->log.calls,
              (std::vector<std::string>{"open 0", "next 1", "flush", "close", "open 5", "flush", "close"}));
}

TEST(SessionDriver, OnlyAnEncoderThatForcesKeyFramesGoesOnAnywhereInItsRung) {
    // SVT-AV1: the next chunk must follow the last one.
    auto cpu = drive("libsvtav1", 0);
    EXPECT_EQ(indices(cpu->driver->send(chunk(0, 4), {})), std::vector<int>{0});
    cpu->driver->send(chunk(1, 4), {});
    EXPECT_EQ(cpu->log.calls.back(), "next 1");
    // NVENC with every chunk back: chunk 3 goes on in the open session.
    auto gpu = drive("av1_nvenc", 0);
    EXPECT_EQ(indices(gpu->driver->send(chunk(0, 4), {})), std::vector<int>{0});
    EXPECT_EQ(indices(gpu->driver->send(chunk(3, 4), {})), std::vector<int>{3});
    EXPECT_EQ(gpu->log.calls, (std::vector<std::string>{"open 0", "next 3 anywhere"}));
    // ...but not while a chunk is still in the encoder.
    auto held = drive("av1_nvenc", 2);
    EXPECT_TRUE(held->driver->send(chunk(0, 4), {}).empty());
    EXPECT_THROW(held->driver->send(chunk(3, 4), {}), RunError);
}

TEST(SessionDriver, EncodeIsASessionOfOneChunkOnAFreshEncoder) {
    auto d = drive("libsvtav1", 3);
    const EncodedChunk c = d->driver->encode(chunk(2, 4), {});
    EXPECT_EQ(c.index, 2);
    EXPECT_EQ(c.packets.size(), 4u);
    d->driver->send(chunk(0, 4), {});
    EXPECT_THROW(d->driver->encode(chunk(1, 4), {}), RunError) << "a session is open";
    EXPECT_THROW(d->driver->send(RawChunk{}, {}), RunError) << "a chunk with no frames";
}

}  // namespace
}  // namespace ladder::engine
