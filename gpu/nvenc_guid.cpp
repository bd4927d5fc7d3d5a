#include "gpu/nvenc_guid.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <ffnvcodec/nvEncodeAPI.h>

#if NVENCAPI_MAJOR_VERSION < 12
// The SDK 11.x header packaged with Debian 12 predates AV1; nv-codec-headers
// 12.0 and newer (Debian 13) define this same value themselves. Value from
// FFmpeg/nv-codec-headers include/ffnvcodec/nvEncodeAPI.h (SDK 12.0+):
// {0A352289-0AA7-4759-862D-5D15CD16D254}
static const GUID NV_ENC_CODEC_AV1_GUID = {
    0x0a352289, 0x0aa7, 0x4759, {0x86, 0x2d, 0x5d, 0x15, 0xcd, 0x16, 0xd2, 0x54}};
#endif

namespace ladder::gpu {

NvGuid nvenc_av1_encode_guid() {
    const GUID& g = NV_ENC_CODEC_AV1_GUID;
    NvGuid out{g.Data1, g.Data2, g.Data3, {}};
    std::copy(std::begin(g.Data4), std::end(g.Data4), out.data4.begin());
    return out;
}

std::string to_string(const NvGuid& g) {
    return fmt::format("{:08X}-{:04X}-{:04X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}", g.data1, g.data2,
                       g.data3, g.data4[0], g.data4[1], g.data4[2], g.data4[3], g.data4[4], g.data4[5], g.data4[6],
                       g.data4[7]);
}

bool lists_guid(const std::vector<NvGuid>& guids, const NvGuid& wanted) {
    return std::find(guids.begin(), guids.end(), wanted) != guids.end();
}

}  // namespace ladder::gpu
