// engine/check/segment_timing: when a segment's samples play, from a track's
// timescale and edit list and a fragment's tfdt and durations; numbers no
// ladder writes (a hostile file given to `ladder validate`) are refused, not
// wrapped.
#include "engine/check/segment_timing.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace ladder::test {
namespace {

mux::TrackTiming track(std::uint32_t timescale, std::int64_t at_zero) {
    mux::TrackTiming t;
    t.timescale = timescale;
    t.media_time_at_zero = at_zero;
    t.has_edit_list = at_zero != 0;
    return t;
}

mux::FragmentLayout fragment(std::uint64_t decode_time, std::uint64_t first, std::uint64_t duration) {
    mux::FragmentLayout f;
    f.decode_time = decode_time;
    f.first_sample_duration = first;
    f.duration = duration;
    return f;
}

TEST(SegmentTiming, PlacesAnAudioSegmentAfterItsEditList) {
    // 48 kHz, the priming (1024 samples) hidden: the first segment decodes
    // from 0 and plays from 0 what follows its first frame.
    const auto first = engine::segment_timing(track(48000, 1024), fragment(0, 1024, 49152));
    ASSERT_TRUE(first);
    EXPECT_DOUBLE_EQ(first->start, -1024.0 / 48000);
    EXPECT_DOUBLE_EQ(first->first_sample_end, 0);
    EXPECT_DOUBLE_EQ(first->presented(), 48128.0 / 48000);
    const auto second = engine::segment_timing(track(48000, 1024), fragment(49152, 1024, 48128));
    ASSERT_TRUE(second);
    EXPECT_DOUBLE_EQ(second->presented_start(), 48128.0 / 48000);
    EXPECT_DOUBLE_EQ(engine::presentation_seconds(track(48000, 1024), 49152), 48128.0 / 48000);
}

TEST(SegmentTiming, RefusesTimesBeyond64Bits) {
    constexpr std::uint64_t kHuge = std::numeric_limits<std::uint64_t>::max();
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    EXPECT_FALSE(engine::segment_timing(track(48000, 0), fragment(kHuge, 1024, 2048)));
    EXPECT_FALSE(engine::segment_timing(track(48000, kMin), fragment(1, 1024, 2048)));
    EXPECT_FALSE(engine::segment_timing(track(48000, 0), fragment(static_cast<std::uint64_t>(kMax), 1024, 2048)));
    EXPECT_FALSE(engine::segment_timing(track(48000, 0), fragment(0, 1024, kHuge)));
    EXPECT_FALSE(engine::segment_timing(track(0, 0), fragment(0, 1024, 2048)));
}

}  // namespace
}  // namespace ladder::test
