#pragma once
// NVENC names codecs by GUID; the AV1 encode GUID is what tells an
// AV1-capable NVENC (Ada and newer) from an older one.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ladder::gpu {

// The Video Codec SDK's GUID, kept free of the SDK header so callers and
// tests need not include it.
struct NvGuid {
    std::uint32_t data1 = 0;
    std::uint16_t data2 = 0;
    std::uint16_t data3 = 0;
    std::array<std::uint8_t, 8> data4{};
    bool operator==(const NvGuid&) const = default;
};

// NV_ENC_CODEC_AV1_GUID of the Video Codec SDK 12.0 and newer.
NvGuid nvenc_av1_encode_guid();

// "0A352289-0AA7-4759-862D-5D15CD16D254", as the SDK header's comments write it.
std::string to_string(const NvGuid& guid);

// Whether `guids` (what nvEncGetEncodeGUIDs listed) contains `wanted`; every
// byte counts.
bool lists_guid(const std::vector<NvGuid>& guids, const NvGuid& wanted);

}  // namespace ladder::gpu
