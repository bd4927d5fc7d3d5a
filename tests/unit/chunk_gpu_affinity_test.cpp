// Chunks that stay in the memory of the GPU that decoded them: only an NVENC
// session on that GPU takes them, a session's run ends where the frames move
// to another GPU, a rung whose chunks wait on a GPU with no session left
// fails the run naming that GPU, and a chunk that a lane boundary splits
// between two GPUs goes whole to the GPU holding most of it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/schedule/chunk_dispatcher.hpp"
#include "engine/rung/rung.hpp"
#include "engine/base/errors.hpp"

namespace ladder::engine {
namespace {

constexpr int kGpuChunkFrames = 4;  // per chunk

RawChunk gpu_chunk(int index, int gpu, int frames = kGpuChunkFrames, std::int64_t first = -1) {
    RawChunk c;
    c.index = index;
    c.first_frame = first >= 0 ? first : static_cast<std::int64_t>(index) * kGpuChunkFrames;
    c.gpu = gpu;
    for (int i = 0; i < frames; ++i) c.frames.push_back(av::make_frame());
    return c;
}

// One rung of 8 chunks: 0-3 in GPU 0's memory, 4-7 in GPU 1's; sessions
// of up to 8 chunks.
std::unique_ptr<ChunkDispatcher> two_gpu_rung(int workers) {
    auto d = std::make_unique<ChunkDispatcher>(std::vector<RungPlan>{RungPlan{"1080p", 100, 8 * kGpuChunkFrames, kGpuChunkFrames}},
                                               1000, DispatchMode::helpers, 3, workers, 8, 1, 8);
    for (int k = 0; k < 8; ++k) d->queue(0).push(gpu_chunk(k, k < 4 ? 0 : 1));
    d->queue(0).close();
    d->set_frame_gpus({0, 1});
    return d;
}

// Every chunk a worker's sessions took, until nothing is ready for it
// (try_next: the other GPU's chunks never are).
std::vector<int> run_gpu_sessions(ChunkDispatcher& d, int w) {
    std::vector<int> got;
    bool finished = false;
    std::uint64_t observed = 0;
    while (auto c = d.try_next(w, finished, observed)) {
        while (c) {
            got.push_back(c->index);
            d.done(w, *c, 1.0);
            c = d.continue_session(w);
        }
    }
    return got;
}

TEST(ChunkGpuAffinity, EachGpusSessionsTakeOnlyTheChunksInItsMemory) {
    auto d = two_gpu_rung(2);
    const int on_gpu1 = d->add_worker("av1_nvenc", -1, 1);
    const int on_gpu0 = d->add_worker("av1_nvenc", -1, 0);
    EXPECT_EQ(run_gpu_sessions(*d, on_gpu1), (std::vector<int>{4, 5, 6, 7})) << "GPU 1's sessions skip GPU 0's chunks";
    EXPECT_EQ(run_gpu_sessions(*d, on_gpu0), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_TRUE(d->all_finished());
}

TEST(ChunkGpuAffinity, ASessionsRunEndsWhereTheFramesMoveToAnotherGpu) {
    // One of the two workers so far: its fair share is the whole rung (8
    // chunks), and its run still ends after chunk 3, the last in its GPU's
    // memory.
    auto d = two_gpu_rung(2);
    const int on_gpu0 = d->add_worker("av1_nvenc", -1, 0);
    auto first = d->next(on_gpu0, {});
    ASSERT_TRUE(first);
    EXPECT_EQ(first->index, 0);
    EXPECT_EQ(d->session_chunks(on_gpu0), 8);
    std::vector<int> got{first->index};
    while (auto c = d->continue_session(on_gpu0)) got.push_back(c->index);
    EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3}));
}

TEST(ChunkGpuAffinity, ARungWhoseChunksWaitOnAGpuWithNoSessionLeftFailsNamingTheGpu) {
    auto d = two_gpu_rung(2);
    const int on_gpu0 = d->add_worker("av1_nvenc", -1, 0);
    const int on_gpu1 = d->add_worker("av1_nvenc", -1, 1);
    (void)on_gpu0;
    try {
        d->retire(on_gpu1);
        FAIL() << "GPU 1's chunks were left to nobody";
    } catch (const RunError& e) {
        EXPECT_NE(std::string(e.what()).find("rung 1080p: no encoder slot left on GPU 1"), std::string::npos)
            << e.what();
    }
}

TEST(ChunkGpuAffinity, ChunksInHostMemoryGoToAnyWorker) {
    ChunkDispatcher d({RungPlan{"r0", 100, 2 * kGpuChunkFrames, kGpuChunkFrames}}, 1000, DispatchMode::helpers, 3, 2, 1);
    for (int k = 0; k < 2; ++k) d.queue(0).push(gpu_chunk(k, -1));
    d.queue(0).close();
    const int nvenc = d.add_worker("av1_nvenc", -1, 1);
    const int svt = d.add_worker("libsvtav1", -1, -1);
    auto a = d.next(nvenc, {});
    auto b = d.next(svt, {});
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->index + b->index, 1);
}

TEST(ChunkGpuAffinity, EachGpusSlotsSpreadOverTheRungsBeforeDoublingUp) {
    // Two rungs, two GPUs with two slots each, chunks 0-1 on GPU 0 and 2-3
    // on GPU 1, more to come. A GPU's chunks go only to its own two slots,
    // so each GPU puts one slot on each rung (two encoders per slot at
    // most over the run), whatever the other GPU's slots do.
    ChunkDispatcher d({RungPlan{"1080p", 200, 40 * kGpuChunkFrames, kGpuChunkFrames},
                       RungPlan{"360p", 100, 40 * kGpuChunkFrames, kGpuChunkFrames}},
                      1000, DispatchMode::helpers, 3, 4, 1, 1, 1);
    for (int rung = 0; rung < 2; ++rung)
        for (int k = 0; k < 4; ++k) {
            RawChunk c = gpu_chunk(k, k < 2 ? 0 : 1);
            c.rung = rung;
            d.queue(rung).push(std::move(c));
        }
    d.set_frame_gpus({0, 1});
    const int a0 = d.add_worker("av1_nvenc", -1, 0);
    const int a1 = d.add_worker("av1_nvenc", -1, 1);
    const int b0 = d.add_worker("av1_nvenc", -1, 0);
    const int b1 = d.add_worker("av1_nvenc", -1, 1);
    auto rung_of = [&](int w) {
        auto c = d.next(w, {});
        return c ? c->rung : -1;
    };
    EXPECT_EQ(rung_of(a0), 0) << "the biggest rung first";
    EXPECT_EQ(rung_of(a1), 0) << "nobody on GPU 1 works on the biggest rung yet";
    EXPECT_EQ(rung_of(b0), 1) << "GPU 0's other slot takes the rung GPU 0 has nobody on";
    EXPECT_EQ(rung_of(b1), 1);
}

TEST(ChunkGpuAffinity, AChunkSplitBetweenTwoGpusGoesWholeToTheGpuHoldingMostOfIt) {
    ChunkJoiner joiner("r", kGpuChunkFrames, 2);
    // Chunk 1 (frames 4-7): frame 4 from the lane on GPU 2, 5-7 from GPU 3.
    EXPECT_FALSE(joiner.add(gpu_chunk(1, 2, 1, 4), false));
    auto whole = joiner.add(gpu_chunk(1, 3, 3, 5), false);
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->gpu, 3);
    EXPECT_EQ(whole->first_frame, 4);
    EXPECT_EQ(whole->frames.size(), 4u);
}

TEST(ChunkGpuAffinity, AChunkPartlyInHostMemoryFailsTheRunInsteadOfMixingMemories) {
    ChunkJoiner joiner("r", kGpuChunkFrames, 2);
    EXPECT_FALSE(joiner.add(gpu_chunk(0, 0, 2, 0), false));
    EXPECT_THROW(joiner.add(gpu_chunk(0, -1, 2, 2), false), RunError);
}

}  // namespace
}  // namespace ladder::engine
