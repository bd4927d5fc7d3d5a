// DecodedFrames: the frames a budget run's first pass keeps for its later
// passes. Complete only with every frame of the pass, in number order,
// within the bytes reserved; anything else frees them and gives the
// reservation back, so that the later passes decode as before.
#include <gtest/gtest.h>

#include <memory>

#include "engine/base/memory_budget.hpp"
#include "engine/source/decoded_frames.hpp"
#include "yuv420p_frames.hpp"

namespace ladder::engine {
namespace {

constexpr int kW = 64;
constexpr int kH = 36;

av::FramePtr numbered(int number) {
    return test::yuv420p_frame(kW, kH, number, [number](int plane) { return static_cast<std::uint8_t>(number + plane); });
}

PumpCounters pass_of(std::int64_t first, std::int64_t end) {
    PumpCounters c;
    c.first_frame = first;
    c.end_frame = end;
    c.frames_normalized = end - first;
    c.frames_decoded = end - first;
    c.video_packets = end - first + 1;
    return c;
}

struct Store {
    MemoryBudget budget{1 << 24};
    std::unique_ptr<DecodedFrames> frames;
    explicit Store(std::uint64_t limit) {
        frames = std::make_unique<DecodedFrames>(std::move(*budget.try_reserve(limit)), limit);
    }
};

TEST(DecodedFrames, TwoLanesOutOfOrderMakeTheWholePassInNumberOrder) {
    Store store(1 << 20);
    // Lane 2 (frames 3-5) hands some on before lane 1 (frames 0-2).
    for (int n : {3, 0, 4, 1, 5, 2}) store.frames->keep(numbered(n).get());
    EXPECT_TRUE(store.frames->keeping());
    store.frames->seal(pass_of(0, 6), true);
    ASSERT_TRUE(store.frames->complete());
    EXPECT_FALSE(store.frames->keeping());
    const auto frames = store.frames->frames();
    ASSERT_EQ(frames.size(), 6u);
    for (int n = 0; n < 6; ++n) {
        EXPECT_EQ(frames[n]->pts, n);
        EXPECT_EQ(frames[n]->data[0][0], n) << "the frame's own pixels, not a copy of another";
    }
    EXPECT_EQ(store.frames->decoded().video_packets, 7);
    EXPECT_GE(store.frames->bytes(), 6u * kW * kH * 3 / 2);
}

TEST(DecodedFrames, ABufferLargerThanReservedLeavesNothingKeptAndGivesTheBytesBack) {
    const std::uint64_t one = DecodedFrames::frame_bytes(numbered(0).get());
    Store store(2 * one);
    for (int n = 0; n < 3; ++n) store.frames->keep(numbered(n).get());
    EXPECT_FALSE(store.frames->keeping()) << "the third frame overflowed";
    EXPECT_EQ(store.frames->bytes(), 0u);
    store.frames->seal(pass_of(0, 3), true);
    EXPECT_FALSE(store.frames->complete());
    EXPECT_TRUE(store.frames->frames().empty());
    EXPECT_EQ(store.budget.used(), 0u) << "the reservation went back to the run's budget";
}

TEST(DecodedFrames, AMissingFrameOrAStoppedPassIsNotComplete) {
    Store gap(1 << 20);
    for (int n : {0, 1, 3}) gap.frames->keep(numbered(n).get());
    gap.frames->seal(pass_of(0, 4), true);
    EXPECT_FALSE(gap.frames->complete());
    EXPECT_EQ(gap.budget.used(), 0u);

    Store stopped(1 << 20);
    for (int n = 0; n < 4; ++n) stopped.frames->keep(numbered(n).get());
    stopped.frames->seal(pass_of(0, 4), false);
    EXPECT_FALSE(stopped.frames->complete());

    Store twice(1 << 20);
    for (int n : {0, 1, 1, 2}) twice.frames->keep(numbered(n).get());
    twice.frames->seal(pass_of(0, 3), true);
    EXPECT_FALSE(twice.frames->complete()) << "a number handed on twice";
}

TEST(DecodedFrames, AShardsRangeStartsWhereThePassStarted) {
    Store store(1 << 20);
    for (int n = 10; n < 14; ++n) store.frames->keep(numbered(n).get());
    store.frames->seal(pass_of(10, 14), true);
    ASSERT_TRUE(store.frames->complete());
    EXPECT_EQ(store.frames->frames().front()->pts, 10);
    EXPECT_GT(store.budget.used(), 0u) << "held while the run's passes need them";
}

TEST(DecodedFrames, FramesKeptAfterTheSealAreIgnored) {
    Store store(1 << 20);
    store.frames->keep(numbered(0).get());
    store.frames->seal(pass_of(0, 1), true);
    store.frames->keep(numbered(1).get());
    EXPECT_EQ(store.frames->frames().size(), 1u);
}

}  // namespace
}  // namespace ladder::engine
