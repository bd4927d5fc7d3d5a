// NVENC probe outcomes as reasons: NVENCSTATUS codes of a failed
// nvEncOpenEncodeSessionEx, the driver-too-old case, the missing-AV1 reason,
// and the session limit by GPU name.
#include "gpu/nvenc_reason.hpp"

#include <gtest/gtest.h>

#include <ffnvcodec/nvEncodeAPI.h>

#include "text_contains.hpp"

namespace ladder::gpu {
namespace {

using ladder::test::contains;

TEST(NvencReason, GpusWithoutAnEncoderEngine) {
    // NV_ENC_ERR_UNSUPPORTED_DEVICE (2) is what a Hopper H100/H200 answers.
    EXPECT_EQ(nvenc_open_failure_reason(NV_ENC_ERR_UNSUPPORTED_DEVICE), "no NVENC engine");
    EXPECT_EQ(nvenc_open_failure_reason(2), "no NVENC engine");
    EXPECT_EQ(nvenc_open_failure_reason(NV_ENC_ERR_NO_ENCODE_DEVICE), "no NVENC engine");
    EXPECT_EQ(nvenc_open_failure_reason(NV_ENC_ERR_INVALID_ENCODERDEVICE), "no NVENC engine");
    EXPECT_EQ(nvenc_open_failure_reason(NV_ENC_ERR_DEVICE_NOT_EXIST), "no NVENC engine");
}

TEST(NvencReason, OtherCodesCarryTheirNumber) {
    const std::string oom = nvenc_open_failure_reason(NV_ENC_ERR_OUT_OF_MEMORY);
    EXPECT_TRUE(contains(oom, "session limit")) << oom;
    EXPECT_TRUE(contains(oom, "= 10")) << oom;

    const std::string version = nvenc_open_failure_reason(NV_ENC_ERR_INVALID_VERSION);
    EXPECT_TRUE(contains(version, "driver too old")) << version;
    EXPECT_TRUE(contains(version, "= 15")) << version;

    const std::string generic = nvenc_open_failure_reason(NV_ENC_ERR_GENERIC);
    EXPECT_EQ(generic, "nvEncOpenEncodeSessionEx failed: NV_ENC_ERR_GENERIC = 20");

    // A code newer than the header: named by number, never a crash.
    const std::string unknown = nvenc_open_failure_reason(4242);
    EXPECT_EQ(unknown, "nvEncOpenEncodeSessionEx failed: NVENCSTATUS 4242 = 4242");
}

TEST(NvencReason, StatusNames) {
    EXPECT_EQ(nvenc_status_name(NV_ENC_SUCCESS), "NV_ENC_SUCCESS");
    EXPECT_EQ(nvenc_status_name(NV_ENC_ERR_UNSUPPORTED_DEVICE), "NV_ENC_ERR_UNSUPPORTED_DEVICE");
    EXPECT_EQ(nvenc_status_name(-1), "NVENCSTATUS -1");
}

TEST(NvencReason, DriverTooOld) {
    EXPECT_EQ(nvenc_driver_too_old_reason(0xb0, 0xb1),
              "NVIDIA driver supports NVENC API 11.0, older than the 11.1 ladder was built for");
    EXPECT_EQ(nvenc_driver_too_old_reason(0x90, 0xc2),
              "NVIDIA driver supports NVENC API 9.0, older than the 12.2 ladder was built for");
}

TEST(NvencReason, WithoutAv1) { EXPECT_STREQ(kNvencWithoutAv1, "NVENC without AV1 encode (needs Ada or newer)"); }

TEST(NvencReason, SessionLimitOnlyForGeForce) {
    EXPECT_EQ(nvenc_session_limit("NVIDIA GeForce RTX 4090"), 8);
    EXPECT_EQ(nvenc_session_limit("NVIDIA GeForce RTX 3060 Laptop GPU"), 8);
    EXPECT_EQ(nvenc_session_limit("NVIDIA H100 80GB HBM3"), std::nullopt);
    EXPECT_EQ(nvenc_session_limit("NVIDIA L4"), std::nullopt);
    EXPECT_EQ(nvenc_session_limit("NVIDIA RTX 6000 Ada Generation"), std::nullopt);
    EXPECT_EQ(nvenc_session_limit(""), std::nullopt);
}

}  // namespace
}  // namespace ladder::gpu
