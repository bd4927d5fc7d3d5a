#include "gpu/nvenc_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include <fmt/format.h>

// ffnvcodec's loader, quiet: ladder's library code never prints.
#define FFNV_LOAD_FUNC(path) dlopen((path), RTLD_LAZY | RTLD_LOCAL)
#define FFNV_SYM_FUNC(lib, sym) dlsym((lib), (sym))
#define FFNV_FREE_FUNC(lib) dlclose(lib)
#define FFNV_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#define FFNV_DEBUG_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#include <ffnvcodec/dynlink_loader.h>

namespace ladder::gpu {

namespace {

constexpr std::uint32_t kBuiltVersion = (NVENCAPI_MAJOR_VERSION << 4) | NVENCAPI_MINOR_VERSION;

NvencLibrary load() {
    CudaFunctions* cuda = nullptr;
    if (cuda_load_functions(&cuda, nullptr) != 0)
        throw std::runtime_error("cannot load the CUDA driver library libcuda.so.1 (is the NVIDIA driver installed?)");
    NvencFunctions* nvenc = nullptr;
    if (nvenc_load_functions(&nvenc, nullptr) != 0) {
        cuda_free_functions(&cuda);
        throw std::runtime_error(
            "cannot load the NVENC library libnvidia-encode.so.1 (in a container: NVIDIA_DRIVER_CAPABILITIES "
            "must include video)");
    }
    NvencLibrary lib;
    lib.cuda_table = cuda;
    lib.nvenc_table = nvenc;
    lib.push_context = cuda->cuCtxPushCurrent;
    lib.pop_context = cuda->cuCtxPopCurrent;
    const auto fail = [&](const std::string& why) {
        nvenc_free_functions(&nvenc);
        cuda_free_functions(&cuda);
        return std::runtime_error(why);
    };
    if (nvenc->NvEncodeAPIGetMaxSupportedVersion(&lib.driver_version) != NV_ENC_SUCCESS)
        throw fail("the NVENC library does not say which API version it supports");
    if (lib.driver_version < kBuiltVersion)
        throw fail(fmt::format("the NVIDIA driver's NVENC API is {}, ladder needs {} or newer "
                                             "(update the driver)",
                                             nvenc_api_version_text(lib.driver_version),
                                             nvenc_api_version_text(kBuiltVersion)));
    lib.api.version = NV_ENCODE_API_FUNCTION_LIST_VER;
    if (const NVENCSTATUS st = nvenc->NvEncodeAPICreateInstance(&lib.api); st != NV_ENC_SUCCESS)
        throw fail(fmt::format("NvEncodeAPICreateInstance failed ({})", static_cast<int>(st)));
    return lib;
}

}  // namespace

const NvencLibrary& nvenc_library() {
    static const NvencLibrary lib = load();
    return lib;
}

std::string nvenc_api_version_text(std::uint32_t version) {
    return fmt::format("{}.{}", version >> 4, version & 0xF);
}

}  // namespace ladder::gpu
