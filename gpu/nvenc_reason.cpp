#include "gpu/nvenc_reason.hpp"

#include <fmt/format.h>

#include <ffnvcodec/nvEncodeAPI.h>

namespace ladder::gpu {

std::string nvenc_status_name(int status) {
    switch (status) {
        case NV_ENC_SUCCESS: return "NV_ENC_SUCCESS";
        case NV_ENC_ERR_NO_ENCODE_DEVICE: return "NV_ENC_ERR_NO_ENCODE_DEVICE";
        case NV_ENC_ERR_UNSUPPORTED_DEVICE: return "NV_ENC_ERR_UNSUPPORTED_DEVICE";
        case NV_ENC_ERR_INVALID_ENCODERDEVICE: return "NV_ENC_ERR_INVALID_ENCODERDEVICE";
        case NV_ENC_ERR_INVALID_DEVICE: return "NV_ENC_ERR_INVALID_DEVICE";
        case NV_ENC_ERR_DEVICE_NOT_EXIST: return "NV_ENC_ERR_DEVICE_NOT_EXIST";
        case NV_ENC_ERR_INVALID_PTR: return "NV_ENC_ERR_INVALID_PTR";
        case NV_ENC_ERR_INVALID_PARAM: return "NV_ENC_ERR_INVALID_PARAM";
        case NV_ENC_ERR_INVALID_CALL: return "NV_ENC_ERR_INVALID_CALL";
        case NV_ENC_ERR_OUT_OF_MEMORY: return "NV_ENC_ERR_OUT_OF_MEMORY";
        case NV_ENC_ERR_UNSUPPORTED_PARAM: return "NV_ENC_ERR_UNSUPPORTED_PARAM";
        case NV_ENC_ERR_INVALID_VERSION: return "NV_ENC_ERR_INVALID_VERSION";
        case NV_ENC_ERR_GENERIC: return "NV_ENC_ERR_GENERIC";
        case NV_ENC_ERR_INCOMPATIBLE_CLIENT_KEY: return "NV_ENC_ERR_INCOMPATIBLE_CLIENT_KEY";
        case NV_ENC_ERR_UNIMPLEMENTED: return "NV_ENC_ERR_UNIMPLEMENTED";
        default: return fmt::format("NVENCSTATUS {}", status);
    }
}

std::string nvenc_open_failure_reason(int status) {
    switch (status) {
        // What a GPU without an encoder engine answers (FFmpeg's
        // "OpenEncodeSessionEx failed: unsupported device (2)" on cards sold
        // without NVENC); Hopper H100/H200 have NVDEC but no NVENC.
        case NV_ENC_ERR_NO_ENCODE_DEVICE:
        case NV_ENC_ERR_UNSUPPORTED_DEVICE:
        case NV_ENC_ERR_INVALID_ENCODERDEVICE:
        case NV_ENC_ERR_DEVICE_NOT_EXIST:
            return "no NVENC engine";
        // Consumer cards answer a session over the driver's cap this way.
        case NV_ENC_ERR_OUT_OF_MEMORY:
            return fmt::format("NVENC session limit reached or out of memory ({} = {})", nvenc_status_name(status),
                               status);
        case NV_ENC_ERR_INVALID_VERSION:
            return fmt::format("NVIDIA driver too old for NVENC API {}.{} ({} = {})", NVENCAPI_MAJOR_VERSION,
                               NVENCAPI_MINOR_VERSION, nvenc_status_name(status), status);
        default:
            return fmt::format("nvEncOpenEncodeSessionEx failed: {} = {}", nvenc_status_name(status), status);
    }
}

std::string nvenc_driver_too_old_reason(unsigned driver_version, unsigned header_version) {
    return fmt::format("NVIDIA driver supports NVENC API {}.{}, older than the {}.{} ladder was built for",
                       driver_version >> 4, driver_version & 0xf, header_version >> 4, header_version & 0xf);
}

std::optional<int> nvenc_session_limit(const std::string& gpu_name) {
    // GeForce cards: the driver caps concurrent NVENC sessions, counted
    // over all GeForce cards of the system (8 with drivers since January
    // 2024; 5 from March 2023 and 3 before, so on an old driver this is an
    // upper bound). Professional and data-center cards are not capped by the
    // driver; their limit is the engine's throughput, so nothing is claimed.
    if (gpu_name.find("GeForce") != std::string::npos) return 8;
    return std::nullopt;
}

}  // namespace ladder::gpu
