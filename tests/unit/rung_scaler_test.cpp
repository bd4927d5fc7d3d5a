// RungScaler: frames are cut into chunks of N with the same frame numbers in
// every rung; a rung at the source size shares the pump's buffers (no copy);
// other sizes are scaled.
#include <gtest/gtest.h>

#include <map>
#include <stop_token>
#include <utility>
#include <vector>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"
#include "engine/rung/rung.hpp"
#include "noise_planes.hpp"
#include "yuv420p_frames.hpp"

namespace ladder::engine {
namespace {

av::FramePtr gray_frame(int w, int h, int pts) {
    return test::yuv420p_frame(w, h, pts, [](int) { return std::uint8_t{128}; });
}

struct ScaledRun {
    std::vector<RawChunk> chunks;
    std::vector<const uint8_t*> source_planes;
};

// The chunks that say they end the rung: only the last one.
void expect_only_the_last_ends_the_rung(const std::vector<RawChunk>& chunks, RungEnd end) {
    ASSERT_FALSE(chunks.empty());
    for (std::size_t k = 0; k + 1 < chunks.size(); ++k)
        EXPECT_FALSE(chunks[k].ends_rung.has_value()) << "chunk " << chunks[k].index;
    ASSERT_TRUE(chunks.back().ends_rung.has_value());
    EXPECT_EQ(chunks.back().ends_rung->chunks, end.chunks);
    EXPECT_EQ(chunks.back().ends_rung->frames, end.frames);
}

ScaledRun scale_frames(const RungSpec& rung, int frames, int chunk_frames) {
    FrameChannel input(static_cast<std::size_t>(frames) + 1);
    SegmentChunkQueue output(static_cast<std::size_t>(frames) + 1);
    ScaledRun run;
    for (int i = 0; i < frames; ++i) {
        av::FramePtr f = gray_frame(64, 48, i);
        run.source_planes.push_back(f->data[0]);
        EXPECT_TRUE(input.push(std::move(f), {}));
    }
    input.close();
    ChunkJoiner joiner("r", chunk_frames, 1);
    RungScaler scaler(0, rung, AV_PIX_FMT_YUV420P, chunk_frames, input, output, joiner);
    scaler.run(std::stop_token{});
    EXPECT_TRUE(output.closed());
    while (auto c = output.try_pop()) run.chunks.push_back(std::move(*c));
    return run;
}

TEST(RungScaler, CutsChunksOfNFramesWithALastShortOne) {
    ScaledRun run = scale_frames(RungSpec{"r", 32, 24, 100, 0, 0}, 10, 4);
    ASSERT_EQ(run.chunks.size(), 3u);
    expect_only_the_last_ends_the_rung(run.chunks, RungEnd{3, 10});
    const std::size_t sizes[] = {4, 4, 2};
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(run.chunks[k].index, static_cast<int>(k));
        EXPECT_EQ(run.chunks[k].first_frame, static_cast<std::int64_t>(4 * k));
        ASSERT_EQ(run.chunks[k].frames.size(), sizes[k]);
        EXPECT_EQ(run.chunks[k].bytes, sizes[k] * (32 * 24 * 3 / 2));
        for (const auto& f : run.chunks[k].frames) {
            EXPECT_EQ(f->width, 32);
            EXPECT_EQ(f->height, 24);
            EXPECT_EQ(f->data[0][0], 128) << "scaled gray stays gray";
        }
    }
}

// A last chunk as long as the others still says it is the last: the
// scaler holds a full chunk until the next frame or the lane's end.
TEST(RungScaler, AFullLastChunkEndsTheRungToo) {
    ScaledRun run = scale_frames(RungSpec{"r", 32, 24, 100, 0, 0}, 8, 4);
    ASSERT_EQ(run.chunks.size(), 2u);
    EXPECT_EQ(run.chunks[1].frames.size(), 4u);
    expect_only_the_last_ends_the_rung(run.chunks, RungEnd{2, 8});
}

TEST(RungScaler, SourceSizeRungSharesTheDecodedBuffers) {
    ScaledRun run = scale_frames(RungSpec{"same", 64, 48, 100, 0, 0}, 5, 5);
    ASSERT_EQ(run.chunks.size(), 1u);
    ASSERT_EQ(run.chunks[0].frames.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i)
        EXPECT_EQ(run.chunks[0].frames[i]->data[0], run.source_planes[i]) << "no pixel copy at the source size";
}

TEST(RungScaler, ScaledRungDoesNotAliasTheSource) {
    ScaledRun run = scale_frames(RungSpec{"half", 32, 24, 100, 0, 0}, 2, 2);
    ASSERT_EQ(run.chunks.size(), 1u);
    for (std::size_t i = 0; i < 2; ++i) EXPECT_NE(run.chunks[0].frames[i]->data[0], run.source_planes[i]);
}

// The samples of a 384x216 noisy frame scaled to WxH with the CPU's own
// code limited to cpu_flags (ForcedCpuFlags).
std::vector<std::uint8_t> scaled_samples(int w, int h, int cpu_flags) {
    const test::ForcedCpuFlags forced(cpu_flags);
    FrameChannel input(2);
    SegmentChunkQueue output(2);
    av::FramePtr noisy = test::yuv420p_frame(384, 216, 0, [](int) { return std::uint8_t{0}; });
    test::fill_with_noise(noisy.get(), 12345);
    EXPECT_TRUE(input.push(std::move(noisy), {}));
    input.close();
    ChunkJoiner joiner("r", 1, 1);
    RungScaler scaler(0, RungSpec{"r", w, h, 100, 0, 0}, AV_PIX_FMT_YUV420P, 1, input, output, joiner);
    scaler.run(std::stop_token{});
    auto chunk = output.try_pop();
    if (!chunk || chunk->frames.size() != 1) return {};
    return test::samples_of(chunk->frames[0].get());
}

// The same command must give the same ladder on any machine: a rung's
// pixels may not depend on which SIMD code the machine's swscale takes
// (its default bicubic rounds differently with MMXEXT/SSE than in C), or
// the chunks' sizes, and with them the budget's CRFs, differ by machine.
TEST(RungScaler, ScaledPixelsAreTheSameWhateverTheCpuOffers) {
    for (const auto& [w, h] : {std::pair{256, 144}, std::pair{170, 96}}) {
        const std::vector<std::uint8_t> plain_c = scaled_samples(w, h, 0);
        ASSERT_FALSE(plain_c.empty());
        EXPECT_TRUE(plain_c == scaled_samples(w, h, -1)) << w << "x" << h << ": this CPU's SIMD against plain C";
        EXPECT_TRUE(plain_c == scaled_samples(w, h, AV_CPU_FLAG_MMX | AV_CPU_FLAG_MMXEXT | AV_CPU_FLAG_SSE |
                                                       AV_CPU_FLAG_SSE2 | AV_CPU_FLAG_SSSE3))
            << w << "x" << h << ": SSSE3 against plain C";
    }
}

// Two decode lanes split the source at frame 6, inside chunk 1 (frames 4-7):
// each lane's scaler hands its piece to the rung's joiner, and the chunk is
// queued once, whole, with its frames in order; the queue closes after the
// second lane, and the last chunk (from the lane that ended the source)
// carries the rung's end.
TEST(RungScaler, TwoLanesMakeTheChunkTheirBoundarySplits) {
    const RungSpec rung{"r", 64, 48, 100, 0, 0};
    FrameChannel lane0(16), lane1(16);
    SegmentChunkQueue output(16);
    ChunkJoiner joiner("r", 4, 2);
    RungScaler first(0, rung, AV_PIX_FMT_YUV420P, 4, lane0, output, joiner);
    RungScaler second(0, rung, AV_PIX_FMT_YUV420P, 4, lane1, output, joiner);
    first.ends_source(false);
    for (int i = 6; i < 10; ++i) ASSERT_TRUE(lane1.push(gray_frame(64, 48, i), {}));
    lane1.close();
    second.run(std::stop_token{});  // the later lane may end first
    EXPECT_FALSE(output.closed());
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(lane0.push(gray_frame(64, 48, i), {}));
    lane0.close();
    first.run(std::stop_token{});
    EXPECT_TRUE(output.closed());
    std::map<int, RawChunk> chunks;
    while (auto c = output.try_pop()) chunks[c->index] = std::move(*c);
    ASSERT_EQ(chunks.size(), 3u);
    std::vector<RawChunk> in_order;
    for (auto& [k, c] : chunks) in_order.push_back(std::move(c));
    expect_only_the_last_ends_the_rung(in_order, RungEnd{3, 10});
    for (auto& c : in_order) chunks[c.index] = std::move(c);
    const std::size_t sizes[] = {4, 4, 2};
    for (int k = 0; k < 3; ++k) {
        ASSERT_EQ(chunks[k].frames.size(), sizes[k]);
        EXPECT_EQ(chunks[k].first_frame, 4 * k);
        for (std::size_t f = 0; f < sizes[k]; ++f)
            EXPECT_EQ(chunks[k].frames[f]->pts, 4 * k + static_cast<int>(f)) << "chunk " << k;
    }
}

// A frame no lane made leaves its chunk short: the run fails naming the
// chunk instead of encoding a shorter segment.
TEST(ChunkJoiner, AChunkStillMissingFramesWhenTheLastLaneEndsFailsTheRun) {
    ChunkJoiner joiner("720p", 4, 2);
    RawChunk piece;
    piece.index = 1;
    piece.first_frame = 4;
    piece.frames.push_back(gray_frame(8, 8, 4));
    EXPECT_FALSE(joiner.add(std::move(piece), false));
    EXPECT_FALSE(joiner.lane_done(false));
    try {
        joiner.lane_done(true);
        FAIL() << "no error";
    } catch (const RunError& e) {
        EXPECT_NE(std::string(e.what()).find("rung 720p: chunk 1 is missing frames"), std::string::npos) << e.what();
    }
}

TEST(ChunkJoiner, AFrameFromTwoLanesFailsTheRun) {
    ChunkJoiner joiner("r", 4, 2);
    auto piece = [](std::int64_t first, int count) {
        RawChunk p;
        p.index = 0;
        p.first_frame = first;
        for (int i = 0; i < count; ++i) p.frames.push_back(gray_frame(8, 8, static_cast<int>(first) + i));
        return p;
    };
    EXPECT_FALSE(joiner.add(piece(0, 2), false));
    EXPECT_THROW(joiner.add(piece(1, 2), false), RunError);
}

TEST(ChunkJoiner, TheSourcesLastChunkIsWholeShort) {
    ChunkJoiner joiner("r", 4, 2);
    RawChunk head;
    head.index = 2;
    head.first_frame = 8;
    head.frames.push_back(gray_frame(8, 8, 8));
    RawChunk tail;
    tail.index = 2;
    tail.first_frame = 9;
    tail.frames.push_back(gray_frame(8, 8, 9));
    EXPECT_FALSE(joiner.add(std::move(tail), true));
    auto whole = joiner.add(std::move(head), false);
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->first_frame, 8);
    ASSERT_EQ(whole->frames.size(), 2u);
    EXPECT_EQ(whole->frames[1]->pts, 9);
    ASSERT_TRUE(whole->ends_rung.has_value()) << "the piece that ended the source ends the rung";
    EXPECT_EQ(whole->ends_rung->chunks, 3);
    EXPECT_EQ(whole->ends_rung->frames, 10);
}

// The last lane ends without the source's last frames (it read none): the
// rung's last chunk never came, and the run fails instead of waiting for it.
TEST(ChunkJoiner, NoLaneReachingTheSourcesEndFailsTheRun) {
    ChunkJoiner joiner("r", 4, 2);
    EXPECT_FALSE(joiner.lane_done(false));
    EXPECT_THROW(joiner.lane_done(false), RunError);
}

}  // namespace
}  // namespace ladder::engine
