#pragma once
// NVIDIA's encode API (libnvidia-encode.so.1) and the CUDA driver calls an
// NVENC client needs (libcuda.so.1), loaded at run time once per process, as
// FFmpeg does: ladder has no link-time dependency on the driver, and a
// machine without one loads nothing until a run asks for NVENC. The function
// table has no lock of its own: sessions on different GPUs and contexts are
// independent (engine/encode/backend/nvenc_session.*), unlike libavcodec's
// av1_nvenc, whose opens wait for FFmpeg's process-wide codec lock.
#include <cstdint>
#include <string>

#include <ffnvcodec/dynlink_cuda.h>
#include <ffnvcodec/nvEncodeAPI.h>

namespace ladder::gpu {

struct NvencLibrary {
    NV_ENCODE_API_FUNCTION_LIST api{};
    // The newest API the driver takes: major << 4 | minor.
    std::uint32_t driver_version = 0;
    tcuCtxPushCurrent_v2* push_context = nullptr;
    tcuCtxPopCurrent_v2* pop_context = nullptr;
    // The loaders' tables, kept for the process (the libraries are the
    // driver's, and sessions may be open until exit).
    const void* cuda_table = nullptr;
    const void* nvenc_table = nullptr;
};

// The API of the API version ladder was built with (NVENCAPI_VERSION),
// loaded on the first call and kept for the process. Throws
// std::runtime_error saying why when the libraries are missing or the
// driver is older than that version; a later call tries again.
const NvencLibrary& nvenc_library();

// "12.1": an API version as major << 4 | minor.
std::string nvenc_api_version_text(std::uint32_t version);

}  // namespace ladder::gpu
