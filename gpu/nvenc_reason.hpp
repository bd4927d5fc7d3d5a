#pragma once
// Short human reasons for what the NVENC probe saw, and the concurrent
// session limit where one is known. Pure functions of NVENCSTATUS codes and
// GPU names, so they are tested without a GPU.
#include <optional>
#include <string>

namespace ladder::gpu {

// NVENCSTATUS name ("NV_ENC_ERR_UNSUPPORTED_DEVICE"), or "NVENCSTATUS <n>".
std::string nvenc_status_name(int status);

// Why nvEncOpenEncodeSessionEx failed with `status`: "no NVENC engine" for
// GPUs without one (Hopper H100/H200, A100, ...), else a short reason that
// ends with the numeric status.
std::string nvenc_open_failure_reason(int status);

// Reason when the session opened but the AV1 encode GUID is not listed.
inline constexpr const char* kNvencWithoutAv1 = "NVENC without AV1 encode (needs Ada or newer)";

// Why the probe could not ask at all: the driver's NVENC API is older than
// the SDK header ladder was built with. Versions as (major << 4) | minor,
// what NvEncodeAPIGetMaxSupportedVersion returns.
std::string nvenc_driver_too_old_reason(unsigned driver_version, unsigned header_version);

// Concurrent NVENC sessions allowed on the GPU called `gpu_name`, where known.
std::optional<int> nvenc_session_limit(const std::string& gpu_name);

}  // namespace ladder::gpu
