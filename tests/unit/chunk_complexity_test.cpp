// A rung's rate is shared among its sessions by how hard their chunks are.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>

#include "engine/rung/chunk_analyzer.hpp"
#include "engine/rung/chunk_complexity.hpp"
#include "yuv420p_frames.hpp"

namespace ladder::engine {
namespace {

TEST(ChunkComplexity, NothingMeasuredIsAnEvenShare) {
    ChunkComplexity c;
    EXPECT_DOUBLE_EQ(c.weight(0, 4), 1.0);
    c.record(10, 5000);
    EXPECT_DOUBLE_EQ(c.weight(0, 4), 1.0) << "chunks 0-3 are not measured";
    EXPECT_DOUBLE_EQ(c.weight(10, 1), 1.0) << "the only chunk measured is the average";
}

TEST(ChunkComplexity, HarderChunksGetMoreNotAllTheyWouldTake) {
    ChunkComplexity c;
    for (int i = 0; i < 4; ++i) c.record(i, 1000);
    for (int i = 4; i < 8; ++i) c.record(i, 4000);  // 4x the bits at a constant quality
    // Efforts 1000^0.6 and 4000^0.6 = 2.30x; the mean of the two is 1.65.
    const double easy = 1.0 / 1.65;
    EXPECT_NEAR(c.weight(0, 4), easy, 0.01);
    EXPECT_NEAR(c.weight(4, 4), std::pow(4.0, 0.6) * easy, 0.01);
    EXPECT_NEAR(c.weight(2, 4), (1 + std::pow(4.0, 0.6)) / 2 * easy, 0.01) << "a session across both halves";
    EXPECT_NEAR(c.weight(0, 8), 1.0, 1e-9);
    EXPECT_NEAR(c.weight_from(0), 1.0, 1e-9);
    EXPECT_NEAR(c.weight_from(4), c.weight(4, 4), 1e-9) << "what is left from chunk 4 on: the hard half";
    EXPECT_NEAR(c.weight_from(2), c.weight(2, 6), 1e-9);
}

TEST(ChunkComplexity, SharesStayWithinBounds) {
    ChunkComplexity c;
    c.record(0, 0);  // black
    for (int i = 1; i < 10; ++i) c.record(i, 20000);
    c.record(10, 2'000'000);  // one wild chunk
    EXPECT_DOUBLE_EQ(c.weight(0, 1), ChunkComplexity::kMinWeight);
    EXPECT_DOUBLE_EQ(c.weight(10, 1), ChunkComplexity::kMaxWeight);
}

TEST(ChunkComplexity, WhileLittleIsMeasuredSharesStayNearEven) {
    ChunkComplexity c(12);
    for (int i = 0; i < 3; ++i) c.record(i, 1000);
    c.record(3, 4000);
    ChunkComplexity all;  // the same four chunks taken at their word
    for (int i = 0; i < 3; ++i) all.record(i, 1000);
    all.record(3, 4000);
    // 4 of 12 measured: a third of the way from even to the measured share.
    EXPECT_NEAR(c.weight(3, 1) - 1.0, (all.weight(3, 1) - 1.0) / 3, 1e-12);
    for (int i = 4; i < 12; ++i) c.record(i, 1000);
    for (int i = 4; i < 12; ++i) all.record(i, 1000);
    EXPECT_DOUBLE_EQ(c.weight(3, 1), all.weight(3, 1)) << "every chunk measured";
}

TEST(ChunkComplexity, OnlyTheMeasuredChunksOfASessionCount) {
    ChunkComplexity c;
    c.record(0, 1000);
    c.record(1, 8000);
    // Chunks 1-3 of a session: only 1 is measured yet.
    EXPECT_NEAR(c.weight(1, 3), c.weight(1, 1), 1e-12);
}

TEST(ChunkAnalyzerSize, About180LinesOnTheShortSideEvenNeverLarger) {
    EXPECT_EQ(ChunkAnalyzer::analysis_size(1920, 1080), std::make_pair(320, 180));
    EXPECT_EQ(ChunkAnalyzer::analysis_size(1080, 1920), std::make_pair(180, 320));
    EXPECT_EQ(ChunkAnalyzer::analysis_size(3840, 1600), std::make_pair(432, 180));
    EXPECT_EQ(ChunkAnalyzer::analysis_size(176, 144), std::make_pair(176, 144));
    EXPECT_EQ(ChunkAnalyzer::analysis_size(177, 99), std::make_pair(176, 98));
}


// seed 0: flat grey; else fresh noise in every frame.
av::FramePtr analysis_test_frame(int w, int h, int pts, unsigned seed) {
    return test::yuv420p_frame(w, h, pts, [&seed](int) {
        seed = seed ? seed * 1103515245u + 12345u : 0;
        return static_cast<std::uint8_t>(seed ? (seed >> 16) & 0xff : 128);
    });
}

// A 128x96 25 fps source, smaller than the analysis copy (it is taken whole).
SourceInfo small_source() {
    SourceInfo source;
    source.display_width = 128;
    source.display_height = 96;
    source.frame_rate = AVRational{25, 1};
    return source;
}

// The analysis encodes every chunk it is fed, as the pump feeds a rung:
// a chunk of noise measures far harder than a flat one. Two decode lanes
// feed it here, split in the middle of chunk 1.
TEST(ChunkAnalyzerRun, NoiseMeasuresHarderThanAFlatPicture) {
    if (!ChunkAnalyzer::available()) GTEST_SKIP() << "no libsvtav1 in this FFmpeg build";
    const SourceInfo source = small_source();
    NullProgressSink progress;
    ChunkAnalyzer analyzer(source, 10, 3, 7, make_encoder_backend, 0, progress, 2);
    FrameChannel lane0(32), lane1(32);
    analyzer.connect(lane0, [] { return false; });
    analyzer.connect(lane1, [] { return true; });
    {
        StageThreads stages{std::stop_token{}};
        analyzer.start(stages);
        for (int i = 15; i < 30; ++i)
            ASSERT_TRUE(lane1.push(analysis_test_frame(128, 96, i, i >= 10 && i < 20 ? 7u + i : 0u), {}));
        lane1.close();
        for (int i = 0; i < 15; ++i)
            ASSERT_TRUE(lane0.push(analysis_test_frame(128, 96, i, i >= 10 && i < 20 ? 7u + i : 0u), {}));
        lane0.close();
        stages.join();
        EXPECT_FALSE(stages.failure());
    }
    const ChunkComplexity& c = analyzer.complexity();
    EXPECT_EQ(c.measured(), 3);
    EXPECT_GT(c.weight(1, 1), 2 * c.weight(0, 1)) << "noise against flat grey";
    EXPECT_GT(c.weight(1, 1), 2 * c.weight(2, 1));
}

// Once no rung it speaks for can start a session, the analysis takes its
// chunks (the lanes never wait for it) but encodes none: the run does not
// wait for measurements nobody reads.
TEST(ChunkAnalyzerRun, MeasuresNothingOnceNobodyReadsIt) {
    if (!ChunkAnalyzer::available()) GTEST_SKIP() << "no libsvtav1 in this FFmpeg build";
    const SourceInfo source = small_source();
    NullProgressSink progress;
    ChunkAnalyzer analyzer(source, 10, 3, 7, make_encoder_backend, 0, progress);
    std::atomic<int> asked{0};
    analyzer.measure_while([&asked] { return ++asked <= 1; });  // the first chunk only
    FrameChannel lane(64);
    analyzer.connect(lane, [] { return true; });
    {
        StageThreads stages{std::stop_token{}};
        analyzer.start(stages);
        for (int i = 0; i < 30; ++i) ASSERT_TRUE(lane.push(analysis_test_frame(128, 96, i, 7u + i), {}));
        lane.close();
        stages.join();
        EXPECT_FALSE(stages.failure());
    }
    EXPECT_EQ(analyzer.complexity().measured(), 1);
    EXPECT_EQ(asked.load(), 3) << "asked once per chunk";
}


TEST(ChunkAnalyzerReach, RungsUpToThreeTimesTheAnalysisSizeTakeItsShares) {
    SourceInfo source;
    source.display_width = 1920;
    source.display_height = 1080;
    source.frame_rate = AVRational{25, 1};
    NullProgressSink progress;
    const ChunkAnalyzer analyzer(source, 50, 12, 4, make_encoder_backend, 0, progress);  // a 320x180 copy
    EXPECT_TRUE(analyzer.covers(RungSpec{"360p", 640, 360, 600, 0, 0}));
    EXPECT_TRUE(analyzer.covers(RungSpec{"540p", 960, 540, 1200, 0, 0}));
    EXPECT_FALSE(analyzer.covers(RungSpec{"720p", 1280, 720, 2500, 0, 0}));
    EXPECT_TRUE(analyzer.covers(RungSpec{"portrait 540", 540, 960, 1200, 0, 0})) << "the short side counts";
}

}  // namespace
}  // namespace ladder::engine
