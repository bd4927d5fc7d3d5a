// Which CPU encoders' chunks are decoded before they are accepted by
// default: SVT-AV1 from 2.0 on (its thread race wrote an undecodable frame
// with 2.3.0) and an SVT-AV1 of unknown version; every one with all.
#include <gtest/gtest.h>

#include "engine/encode/chunk_verification.hpp"

namespace ladder::engine {
namespace {

TEST(ChunkVerification, SvtAv1FromTwoOnAndOfUnknownVersionIsDecoded) {
    EXPECT_TRUE(may_write_undecodable_frames("libsvtav1", "v2.3.0"));
    EXPECT_TRUE(may_write_undecodable_frames("libsvtav1", "2.1.0-rc1"));
    EXPECT_TRUE(may_write_undecodable_frames("libsvtav1", "v3.0.0"));
    EXPECT_TRUE(may_write_undecodable_frames("libsvtav1", "unknown"));
    EXPECT_TRUE(may_write_undecodable_frames("libsvtav1", ""));
    EXPECT_FALSE(may_write_undecodable_frames("libsvtav1", "v1.4.1"));
    EXPECT_FALSE(may_write_undecodable_frames("libsvtav1", "v0.9.1"));
    EXPECT_FALSE(may_write_undecodable_frames("libaom-av1", "3.6.0"));
}

TEST(ChunkVerification, AllDecodesEveryCpuEncodersChunks) {
    const std::vector<std::pair<std::string, std::string>> pool{{"libsvtav1", "v1.4.1"}, {"libaom-av1", "3.6.0"}};
    EXPECT_TRUE(encoders_to_verify(pool, false).empty());
    EXPECT_EQ(encoders_to_verify(pool, true), (std::set<std::string>{"libsvtav1", "libaom-av1"}));
    EXPECT_EQ(encoders_to_verify({{"libsvtav1", "v2.3.0"}, {"libaom-av1", "3.12.1"}}, false),
              (std::set<std::string>{"libsvtav1"}));
}

}  // namespace
}  // namespace ladder::engine
