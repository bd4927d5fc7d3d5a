// engine/check/segment_listing: a segment file listed twice, in one list or in two
// lists of one kind, is named once per file and list, in words that say how.
#include "engine/check/segment_listing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ladder::test {
namespace {

using engine::FileId;
using engine::ListingCheck;
using engine::SegmentRegistry;

TEST(SegmentListing, AFileListedOnceIsNoProblem) {
    SegmentRegistry registry;
    ListingCheck list(registry, "120p/index.m3u8");
    for (std::uint64_t inode = 1; inode <= 3; ++inode) {
        EXPECT_EQ(list.earlier({1, inode}, "seg.m4s"), nullptr);
        list.record({1, inode}, 100 * inode);
    }
    EXPECT_EQ(list.problems(), std::vector<std::string>{});
}

TEST(SegmentListing, CountsAFileListedAgainInTheSameList) {
    SegmentRegistry registry;
    ListingCheck list(registry, "120p/index.m3u8");
    EXPECT_EQ(list.earlier({1, 7}, "seg_00001.m4s"), nullptr);
    list.record({1, 7}, 4000);
    for (const char* uri : {"./seg_00001.m4s", "seg_00001.m4s"}) {
        const auto* first = list.earlier({1, 7}, uri);
        ASSERT_NE(first, nullptr);
        EXPECT_EQ(first->bytes, 4000u);  // what it measured the first time
    }
    EXPECT_EQ(list.problems(),
              std::vector<std::string>{"\"./seg_00001.m4s\" is listed 3 times (a segment file plays once)"});
}

TEST(SegmentListing, NamesTheListThatListedAFileFirst) {
    SegmentRegistry registry;
    ListingCheck first(registry, "240p/index.m3u8");
    EXPECT_EQ(first.earlier({1, 7}, "seg_00002.m4s"), nullptr);
    first.record({1, 7}, 4000);
    ListingCheck second(registry, "120p/index.m3u8");
    EXPECT_NE(second.earlier({1, 7}, "../240p/seg_00002.m4s"), nullptr);
    EXPECT_NE(second.earlier({1, 7}, "../240p/seg_00002.m4s"), nullptr);
    EXPECT_EQ(second.problems(),
              std::vector<std::string>{"\"../240p/seg_00002.m4s\" is also listed by 240p/index.m3u8"});
    EXPECT_EQ(first.problems(), std::vector<std::string>{});
}

}  // namespace
}  // namespace ladder::test
