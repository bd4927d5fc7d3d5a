// TARGETDURATION, BANDWIDTH and AVERAGE-BANDWIDTH from segment durations and
// sizes, against numbers worked out by hand in the comments.
#include "mux/hls_bandwidth.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

using ladder::mux::average_bandwidth;
using ladder::mux::peak_bandwidth;
using ladder::mux::SegmentSize;
using ladder::mux::target_duration;

// ---------------------------------------------------------------- target duration

TEST(TargetDuration, RoundsHalfUp) {
    EXPECT_EQ(target_duration({2.5}), 3);
    EXPECT_EQ(target_duration({2.49}), 2);
    EXPECT_EQ(target_duration({6.5}), 7);
    EXPECT_EQ(target_duration({6.4999}), 6);
}

TEST(TargetDuration, ManyDecimals) {
    EXPECT_EQ(target_duration({2.002}), 2);
    EXPECT_EQ(target_duration({5.9999}), 6);
    EXPECT_EQ(target_duration({2.002, 1.998, 2.002, 0.5}), 2);
}

TEST(TargetDuration, IsTheMaximumOverSegments) {
    EXPECT_EQ(target_duration({2.0, 6.0, 4.4, 1.0}), 6);
    EXPECT_EQ(target_duration({1.0, 2.0, 3.5}), 4);
}

TEST(TargetDuration, AtLeastOne) {
    EXPECT_EQ(target_duration({0.3}), 1);
    EXPECT_EQ(target_duration({0.0}), 1);
    EXPECT_EQ(target_duration({}), 1);
    EXPECT_EQ(target_duration({-3.0, std::nan("")}), 1);
}

TEST(TargetDuration, HugeValuesDoNotOverflow) {
    EXPECT_EQ(target_duration({1e300}), std::numeric_limits<int>::max());
    EXPECT_EQ(target_duration({std::numeric_limits<double>::infinity()}), std::numeric_limits<int>::max());
}

// ---------------------------------------------------------------- peak

TEST(PeakBandwidth, TwoTwoTwoOne) {
    // TD 2: runs of 1..3 s qualify. Bits: 2M, 4M, 2M, 1M.
    // Singles: 1M, 2M, 1M, 1M b/s (all 1..2 s long). Pairs: 2+2 = 4 s too
    // long; 2+1 = 3 s: 3M / 3 = 1M. Peak 2,000,000.
    const std::vector<SegmentSize> s = {{2, 250000}, {2, 500000}, {2, 250000}, {1, 125000}};
    EXPECT_EQ(peak_bandwidth(s, 2), 2000000u);
    // 9M bits / 7 s = 1,285,714.28...
    EXPECT_EQ(average_bandwidth(s), 1285715u);
}

TEST(PeakBandwidth, ASpikeSegment) {
    // Bits 2M x4 and one 8M over 2 s each: peak 4M; average 16M / 10 s.
    const std::vector<SegmentSize> s = {{2, 250000}, {2, 250000}, {2, 1000000}, {2, 250000}, {2, 250000}};
    EXPECT_EQ(peak_bandwidth(s, 2), 4000000u);
    EXPECT_EQ(average_bandwidth(s), 1600000u);
}

TEST(PeakBandwidth, AShortSpikeAloneDoesNotQualify) {
    // TD 2 (runs 1..3 s). Bits 2M, 2M, 0.2M, 2M over 2, 0.5, 0.5, 2 s.
    // The 0.5 s segment at 4M b/s is too short on its own. Runs:
    // [0,1] 4M/2.5 = 1.6M, [0,2] 4.2M/3 = 1.4M, [1,2] 2.2M/1 = 2.2M,
    // [1,3] 4.2M/3 = 1.4M, [2,3] 2.2M/2.5 = 0.88M, singles 1M.
    const std::vector<SegmentSize> s = {{2, 250000}, {0.5, 250000}, {0.5, 25000}, {2, 250000}};
    EXPECT_EQ(peak_bandwidth(s, 2), 2200000u);
    // 6.2M / 5 s.
    EXPECT_EQ(average_bandwidth(s), 1240000u);
}

TEST(PeakBandwidth, UniformSegmentsPeakEqualsAverage) {
    const std::vector<SegmentSize> s(10, SegmentSize{2.0, 300000});
    EXPECT_EQ(peak_bandwidth(s, 2), 1200000u);
    EXPECT_EQ(average_bandwidth(s), 1200000u);
}

TEST(PeakBandwidth, OneShortSegmentFallsBackToItsOwnRate) {
    // 0.3 s is under 0.5 x TD 1, so no run qualifies: 240k bits / 0.3 s.
    const std::vector<SegmentSize> s = {{0.3, 30000}};
    EXPECT_EQ(target_duration({0.3}), 1);
    EXPECT_EQ(peak_bandwidth(s, 1), 800000u);
    EXPECT_EQ(average_bandwidth(s), 800000u);
}

TEST(PeakBandwidth, RoundsUp) {
    // 8000 bits / 3 s = 2666.67.
    const std::vector<SegmentSize> s = {{3, 1000}};
    EXPECT_EQ(peak_bandwidth(s, 3), 2667u);
    EXPECT_EQ(average_bandwidth(s), 2667u);
}

TEST(PeakBandwidth, ExactRatesAreNotRoundedUpByBinaryFractions) {
    // 2,002,000 bits / 2.002 s is exactly 1,000,000.
    const std::vector<SegmentSize> s = {{2.002, 250250}, {2.002, 250250}};
    EXPECT_EQ(peak_bandwidth(s, 2), 1000000u);
    EXPECT_EQ(average_bandwidth(s), 1000000u);
}

TEST(PeakBandwidth, WindowLowerBoundIsExact) {
    // TD 2: runs must last at least 1 s. 0.06 + 0.57 + 0.37 is exactly 1 s
    // (in doubles it sums to 0.9999999999999999). No single segment or pair
    // is long enough, so the peak is the triple: (480k + 456k + 296k) / 1 s,
    // not the fallback single rate of 8M.
    const std::vector<SegmentSize> s = {{0.06, 60000}, {0.57, 57000}, {0.37, 37000}};
    EXPECT_EQ(peak_bandwidth(s, 2), 1232000u);
}

TEST(PeakBandwidth, WindowUpperBoundIsExact) {
    // TD 2: runs may last up to 3 s. 0.08 + 2.24 + 0.68 is exactly 3 s (in
    // doubles 3.0000000000000004). Bits 640k, 224k, 544k.
    // Triple 1,408k / 3 = 469,333.3; pairs 864k / 2.32 = 372,413.8 and
    // 768k / 2.92 = 263,013.7; single 2.24 s: 100k.
    const std::vector<SegmentSize> s = {{0.08, 80000}, {2.24, 28000}, {0.68, 68000}};
    EXPECT_EQ(peak_bandwidth(s, 2), 469334u);
}

TEST(PeakBandwidth, NoSegments) {
    EXPECT_EQ(peak_bandwidth({}, 2), 0u);
    EXPECT_EQ(average_bandwidth({}), 0u);
}

TEST(PeakBandwidth, NoUsableTargetDurationFallsBackToSingles) {
    const std::vector<SegmentSize> s = {{2, 250000}, {1, 250000}};
    EXPECT_EQ(peak_bandwidth(s, 0), 2000000u);
    EXPECT_EQ(peak_bandwidth(s, -4), 2000000u);
}

TEST(PeakBandwidth, ZeroDurationSegmentsAddBytesButNoTime) {
    // A zero-length segment has no rate of its own; inside a run its bytes count.
    const std::vector<SegmentSize> s = {{0, 1000}, {2, 250000}};
    EXPECT_EQ(peak_bandwidth(s, 2), 1004000u);  // (8k + 2M) / 2 s
    EXPECT_EQ(average_bandwidth({{0, 1000}}), 0u);
}

TEST(PeakBandwidth, HostileNumbersSaturateInsteadOfOverflowing) {
    const auto max = std::numeric_limits<std::uint64_t>::max();
    EXPECT_EQ(peak_bandwidth({{1, max}}, 1), max);
    // The bit count saturates at 2^64 - 1; over 2 s that is 2^63 (rounded up).
    EXPECT_EQ(average_bandwidth({{1, max}, {1, max}}), max / 2 + 1);
    EXPECT_EQ(average_bandwidth({{std::nan(""), 1000}}), 0u);
    EXPECT_GT(average_bandwidth({{1e300, 1000}}), 0u);
}
