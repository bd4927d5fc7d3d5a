// RungScaler: frames are cut into chunks of N with the same frame numbers in
// every rung; a rung at the source size shares the pump's buffers (no copy);
// other sizes are scaled.
#include <gtest/gtest.h>

#include <stop_token>

#include "av/av_error.hpp"
#include "engine/rung_scaler.hpp"
#include "yuv420p_frames.hpp"

namespace ladder::engine {
namespace {

av::FramePtr gray_frame(int w, int h, int pts) {
    return test::yuv420p_frame(w, h, pts, [](int) { return std::uint8_t{128}; });
}

struct ScaledRun {
    std::vector<RawChunk> chunks;
    int total_chunks = -1;
    std::int64_t total_frames = -1;
    std::vector<const uint8_t*> source_planes;
};

ScaledRun scale_frames(const Rung& rung, int frames, int chunk_frames) {
    FrameChannel input(static_cast<std::size_t>(frames) + 1);
    SegmentChunkQueue output(static_cast<std::size_t>(frames) + 1);
    ScaledRun run;
    for (int i = 0; i < frames; ++i) {
        av::FramePtr f = gray_frame(64, 48, i);
        run.source_planes.push_back(f->data[0]);
        EXPECT_TRUE(input.push(std::move(f), {}));
    }
    input.close();
    RungScaler scaler(0, rung, AV_PIX_FMT_YUV420P, chunk_frames, input, output, [&](int c, std::int64_t n) {
        run.total_chunks = c;
        run.total_frames = n;
    });
    scaler.run(std::stop_token{});
    EXPECT_TRUE(output.closed());
    while (auto c = output.try_pop()) run.chunks.push_back(std::move(*c));
    return run;
}

TEST(RungScaler, CutsChunksOfNFramesWithALastShortOne) {
    ScaledRun run = scale_frames(Rung{"r", 32, 24, 100, 0, 0}, 10, 4);
    ASSERT_EQ(run.chunks.size(), 3u);
    EXPECT_EQ(run.total_chunks, 3);
    EXPECT_EQ(run.total_frames, 10);
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

TEST(RungScaler, SourceSizeRungSharesTheDecodedBuffers) {
    ScaledRun run = scale_frames(Rung{"same", 64, 48, 100, 0, 0}, 5, 5);
    ASSERT_EQ(run.chunks.size(), 1u);
    ASSERT_EQ(run.chunks[0].frames.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i)
        EXPECT_EQ(run.chunks[0].frames[i]->data[0], run.source_planes[i]) << "no pixel copy at the source size";
}

TEST(RungScaler, ScaledRungDoesNotAliasTheSource) {
    ScaledRun run = scale_frames(Rung{"half", 32, 24, 100, 0, 0}, 2, 2);
    ASSERT_EQ(run.chunks.size(), 1u);
    for (std::size_t i = 0; i < 2; ++i) EXPECT_NE(run.chunks[0].frames[i]->data[0], run.source_planes[i]);
}

}  // namespace
}  // namespace ladder::engine
