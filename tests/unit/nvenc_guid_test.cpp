// The AV1 encode GUID and how listed GUIDs are compared: the value must be
// NVIDIA's (SDK 12.0+, {0A352289-0AA7-4759-862D-5D15CD16D254}) and a GUID
// that differs in any field, down to the last byte, must not match.
#include "gpu/nvenc_guid.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ladder::gpu {
namespace {

// From the SDK header's comments for the other codecs.
const NvGuid kH264{0x6bc82762, 0x4e63, 0x4ca4, {0xaa, 0x85, 0x1e, 0x50, 0xf3, 0x21, 0xf6, 0xbf}};
const NvGuid kHevc{0x790cdc88, 0x4522, 0x4d7b, {0x94, 0x25, 0xbd, 0xa9, 0x97, 0x5f, 0x76, 0x03}};

TEST(NvencGuid, Av1ValueIsNvidias) {
    EXPECT_EQ(to_string(nvenc_av1_encode_guid()), "0A352289-0AA7-4759-862D-5D15CD16D254");
    EXPECT_EQ(to_string(kH264), "6BC82762-4E63-4CA4-AA85-1E50F321F6BF");
}

TEST(NvencGuid, ListedOrNot) {
    const NvGuid av1 = nvenc_av1_encode_guid();
    EXPECT_FALSE(lists_guid({}, av1));
    EXPECT_FALSE(lists_guid({kH264, kHevc}, av1)) << "an Ampere/Turing NVENC lists only H.264 and HEVC";
    EXPECT_TRUE(lists_guid({kH264, kHevc, av1}, av1));
    EXPECT_TRUE(lists_guid({av1}, av1));
}

TEST(NvencGuid, EveryFieldCounts) {
    const NvGuid av1 = nvenc_av1_encode_guid();
    NvGuid last_byte = av1;
    last_byte.data4[7] ^= 0x01;
    NvGuid first_field = av1;
    first_field.data1 += 1;
    NvGuid middle = av1;
    middle.data3 = 0x4758;
    EXPECT_FALSE(lists_guid({last_byte, first_field, middle}, av1));
    EXPECT_FALSE(av1 == last_byte);
}

}  // namespace
}  // namespace ladder::gpu
