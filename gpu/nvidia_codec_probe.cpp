// Includes ffnvcodec's dynlink_loader.h with loader macros of its own (the
// header defines static functions; gpu/nvenc_library.cpp includes it too,
// and neither file goes into a unity batch).
#include "gpu/nvidia_codec_probe.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "gpu/nvenc_guid.hpp"
#include "gpu/nvenc_reason.hpp"

namespace {
// ffnvcodec's loader opens fixed sonames and logs failures to stderr. ladder's
// library code never prints, and tests point the probe at libraries that do
// not exist, so the loader's dlopen goes through this function, which swaps
// in the names of the probe running on this thread.
thread_local const ladder::gpu::ProbeLibraries* current_libraries = nullptr;

void* open_driver_library(const char* default_name);
}  // namespace

#define FFNV_LOAD_FUNC(path) open_driver_library(path)
#define FFNV_SYM_FUNC(lib, sym) dlsym((lib), (sym))
#define FFNV_FREE_FUNC(lib) dlclose(lib)
#define FFNV_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#define FFNV_DEBUG_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#include <ffnvcodec/dynlink_loader.h>

namespace {

void* open_driver_library(const char* default_name) {
    std::string name = default_name;
    if (const auto* libs = current_libraries) {
        if (name == "libcuda.so.1") name = libs->cuda;
        else if (name == "libnvidia-encode.so.1") name = libs->nvenc;
        else if (name == "libnvcuvid.so.1") name = libs->cuvid;
    }
    return dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
}

}  // namespace

namespace ladder::gpu {

namespace {

// Not in ffnvcodec's CudaFunctions; looked up in the same libcuda handle.
using DeviceGetByPciBusIdFn = CUresult CUDAAPI(CUdevice*, const char*);

class LibraryNames {
public:
    explicit LibraryNames(const ProbeLibraries& libs) : previous_(current_libraries) { current_libraries = &libs; }
    LibraryNames(const LibraryNames&) = delete;
    LibraryNames& operator=(const LibraryNames&) = delete;
    ~LibraryNames() { current_libraries = previous_; }

private:
    const ProbeLibraries* previous_;
};

struct CudaFree {
    void operator()(CudaFunctions* f) const { cuda_free_functions(&f); }
};
struct NvencFree {
    void operator()(NvencFunctions* f) const { nvenc_free_functions(&f); }
};
struct CuvidFree {
    void operator()(CuvidFunctions* f) const { cuvid_free_functions(&f); }
};
using Cuda = std::unique_ptr<CudaFunctions, CudaFree>;
using Nvenc = std::unique_ptr<NvencFunctions, NvencFree>;
using Cuvid = std::unique_ptr<CuvidFunctions, CuvidFree>;

// The loaders free what they allocated when they fail and leave nullptr.
Cuda load_cuda() {
    CudaFunctions* f = nullptr;
    return Cuda(cuda_load_functions(&f, nullptr) == 0 ? f : nullptr);
}
Nvenc load_nvenc() {
    NvencFunctions* f = nullptr;
    return Nvenc(nvenc_load_functions(&f, nullptr) == 0 ? f : nullptr);
}
Cuvid load_cuvid() {
    CuvidFunctions* f = nullptr;
    return Cuvid(cuvid_load_functions(&f, nullptr) == 0 ? f : nullptr);
}

std::string cuda_error(const CudaFunctions& cu, CUresult r) {
    const char* name = nullptr;
    if (cu.cuGetErrorName && cu.cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return fmt::format("{} ({})", name, static_cast<int>(r));
    return fmt::format("CUDA error {}", static_cast<int>(r));
}

// The GPU's primary context, current on this thread while the probe runs.
// It is the one FFmpeg's CUDA device context takes too (av/hw_device.cpp
// asks for the primary context), so a GPU the run goes on to use keeps it
// (keep(): retained for the process) and its context is made once, not
// twice: on an H200 a context costs about 100 ms to make and 55 ms to
// destroy, one GPU after another (docs/benchmarks.md). FFmpeg wants
// blocking sync on a primary context and refuses one already active with
// other flags, so the flags are set before it is first made active.
class PrimaryContext {
public:
    PrimaryContext(const CudaFunctions& cu, CUdevice device) : cu_(cu), device_(device) {
        unsigned int flags = 0;
        int active = 0;
        if (cu.cuDevicePrimaryCtxGetState(device, &flags, &active) == CUDA_SUCCESS && !active &&
            flags != CU_CTX_SCHED_BLOCKING_SYNC)
            cu.cuDevicePrimaryCtxSetFlags(device, CU_CTX_SCHED_BLOCKING_SYNC);
        result_ = cu.cuDevicePrimaryCtxRetain(&ctx_, device);
        if (result_ == CUDA_SUCCESS) {
            result_ = cu.cuCtxPushCurrent(ctx_);
            pushed_ = result_ == CUDA_SUCCESS;
            if (!pushed_) cu.cuDevicePrimaryCtxRelease(device);
        }
    }
    PrimaryContext(const PrimaryContext&) = delete;
    PrimaryContext& operator=(const PrimaryContext&) = delete;
    ~PrimaryContext() {
        if (!pushed_) return;
        CUcontext popped = nullptr;
        cu_.cuCtxPopCurrent(&popped);
        if (!keep_) cu_.cuDevicePrimaryCtxRelease(device_);
    }
    CUresult result() const { return result_; }
    CUcontext get() const { return ctx_; }
    // The run will use this GPU: its context stays for the process.
    void keep() { keep_ = true; }

private:
    const CudaFunctions& cu_;
    CUdevice device_;
    CUcontext ctx_ = nullptr;
    CUresult result_ = CUDA_SUCCESS;
    bool pushed_ = false;
    bool keep_ = false;
};

// An open NVENC session, destroyed when the probe is done with it.
class EncodeSession {
public:
    EncodeSession(const NV_ENCODE_API_FUNCTION_LIST& api, void* encoder) : api_(api), encoder_(encoder) {}
    EncodeSession(const EncodeSession&) = delete;
    EncodeSession& operator=(const EncodeSession&) = delete;
    ~EncodeSession() {
        if (encoder_) api_.nvEncDestroyEncoder(encoder_);
    }
    void* get() const { return encoder_; }

private:
    const NV_ENCODE_API_FUNCTION_LIST& api_;
    void* encoder_;
};

NvGuid to_nv_guid(const GUID& g) {
    NvGuid out{g.Data1, g.Data2, g.Data3, {}};
    for (std::size_t i = 0; i < out.data4.size(); ++i) out.data4[i] = g.Data4[i];
    return out;
}

// CUDA numbers devices fastest-first unless CUDA_DEVICE_ORDER=PCI_BUS_ID,
// so NVML's index is not CUDA's: find the ordinal whose handle is `device`.
int ordinal_of(const CudaFunctions& cu, CUdevice device) {
    int count = 0;
    if (cu.cuDeviceGetCount(&count) == CUDA_SUCCESS) {
        for (int i = 0; i < count; ++i) {
            CUdevice d = 0;
            if (cu.cuDeviceGet(&d, i) == CUDA_SUCCESS && d == device) return i;
        }
    }
    return -1;
}

CUresult device_by_bus_id(DeviceGetByPciBusIdFn* by_bus_id, const std::string& bus_id, CUdevice* device) {
    CUresult r = by_bus_id(device, bus_id.c_str());
    // NVML writes an 8-digit domain ("00000000:17:00.0"), which the 580
    // drivers' CUDA accepts; should another driver take only the 4-digit
    // form, try that too.
    if (r != CUDA_SUCCESS && bus_id.size() > 4 && bus_id.rfind("0000", 0) == 0) r = by_bus_id(device, bus_id.substr(4).c_str());
    return r;
}

void probe_nvenc(const NvencFunctions* nvenc, const ProbeLibraries& libs, CUcontext ctx, NvidiaGpu& gpu) {
    NvencProbe& out = gpu.nvenc;
    if (!nvenc) {
        out.reason = fmt::format("NVENC library {} not found", libs.nvenc);
        return;
    }
    // Statuses are kept as int: a newer driver may answer a code this
    // header's NVENCSTATUS has no enumerator for.
    std::uint32_t driver_version = 0;
    if (const int st = nvenc->NvEncodeAPIGetMaxSupportedVersion(&driver_version); st != NV_ENC_SUCCESS) {
        out.reason = fmt::format("NvEncodeAPIGetMaxSupportedVersion failed: {} = {}", nvenc_status_name(st), st);
        return;
    }
    // Structures carry the header's API version; a newer driver accepts
    // older versions, an older driver refuses newer ones.
    constexpr std::uint32_t header_version = (NVENCAPI_MAJOR_VERSION << 4) | NVENCAPI_MINOR_VERSION;
    if (driver_version < header_version) {
        out.reason = nvenc_driver_too_old_reason(driver_version, header_version);
        return;
    }
    NV_ENCODE_API_FUNCTION_LIST api{};
    api.version = NV_ENCODE_API_FUNCTION_LIST_VER;
    if (const int st = nvenc->NvEncodeAPICreateInstance(&api); st != NV_ENC_SUCCESS || !api.nvEncOpenEncodeSessionEx) {
        out.reason = fmt::format("NvEncodeAPICreateInstance failed: {} = {}", nvenc_status_name(st), st);
        return;
    }
    NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS params{};
    params.version = NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS_VER;
    params.deviceType = NV_ENC_DEVICE_TYPE_CUDA;
    params.device = ctx;
    params.apiVersion = NVENCAPI_VERSION;
    void* encoder = nullptr;
    if (const int st = api.nvEncOpenEncodeSessionEx(&params, &encoder); st != NV_ENC_SUCCESS) {
        // A failed open leaves nothing to destroy (FFmpeg's nvenc does the same).
        out.reason = nvenc_open_failure_reason(st);
        return;
    }
    const EncodeSession session(api, encoder);
    out.session_opened = true;

    std::uint32_t count = 0;
    if (const int st = api.nvEncGetEncodeGUIDCount(session.get(), &count); st != NV_ENC_SUCCESS) {
        out.reason = fmt::format("nvEncGetEncodeGUIDCount failed: {} = {}", nvenc_status_name(st), st);
        return;
    }
    std::vector<GUID> guids(count);
    std::uint32_t listed = 0;
    if (count > 0) {
        if (const int st = api.nvEncGetEncodeGUIDs(session.get(), guids.data(), count, &listed); st != NV_ENC_SUCCESS) {
            out.reason = fmt::format("nvEncGetEncodeGUIDs failed: {} = {}", nvenc_status_name(st), st);
            return;
        }
    }
    std::vector<NvGuid> codecs;
    for (std::uint32_t i = 0; i < listed && i < count; ++i) codecs.push_back(to_nv_guid(guids[i]));
    out.av1_encode = lists_guid(codecs, nvenc_av1_encode_guid());
    if (!out.av1_encode) {
        out.reason = kNvencWithoutAv1;
        return;
    }
    GUID guid{};
    for (std::uint32_t i = 0; i < listed && i < count; ++i)
        if (to_nv_guid(guids[i]) == nvenc_av1_encode_guid()) guid = guids[i];
    NV_ENC_CAPS_PARAM caps{};
    caps.version = NV_ENC_CAPS_PARAM_VER;
    caps.capsToQuery = NV_ENC_CAPS_NUM_ENCODER_ENGINES;
    int engines = 0;
    // An older driver may not know the query: the engines stay unknown.
    if (api.nvEncGetEncodeCaps && api.nvEncGetEncodeCaps(session.get(), guid, &caps, &engines) == NV_ENC_SUCCESS)
        out.engines = std::max(0, engines);
}

void probe_nvdec(const CudaFunctions& cu, const CuvidFunctions* cuvid, const ProbeLibraries& libs, NvidiaGpu& gpu) {
    if (!cuvid) {
        gpu.nvdec_status = fmt::format("NVDEC library {} not found", libs.cuvid);
        return;
    }
    if (!cuvid->cuvidGetDecoderCaps) {
        gpu.nvdec_status = fmt::format("{} lacks cuvidGetDecoderCaps (NVIDIA driver too old)", libs.cuvid);
        return;
    }
    struct Row {
        const char* codec;
        cudaVideoCodec id;
        int bit_depth;
    };
    constexpr Row rows[] = {
        {"av1", cudaVideoCodec_AV1, 8},   {"av1", cudaVideoCodec_AV1, 10},  {"hevc", cudaVideoCodec_HEVC, 8},
        {"hevc", cudaVideoCodec_HEVC, 10}, {"h264", cudaVideoCodec_H264, 8},
    };
    std::string first_error;
    for (const Row& row : rows) {
        CUVIDDECODECAPS caps{};
        caps.eCodecType = row.id;
        caps.eChromaFormat = cudaVideoChromaFormat_420;
        caps.nBitDepthMinus8 = static_cast<unsigned>(row.bit_depth - 8);
        DecodeCaps out;
        out.codec = row.codec;
        out.bit_depth = row.bit_depth;
        if (const CUresult r = cuvid->cuvidGetDecoderCaps(&caps); r != CUDA_SUCCESS) {
            if (first_error.empty()) first_error = fmt::format("cuvidGetDecoderCaps failed: {}", cuda_error(cu, r));
        } else {
            out.supported = caps.bIsSupported != 0;
            out.max_width = static_cast<int>(caps.nMaxWidth);
            out.max_height = static_cast<int>(caps.nMaxHeight);
            out.engines = caps.nNumNVDECs;
        }
        gpu.nvdec.push_back(out);
    }
    if (!first_error.empty()) gpu.nvdec_status = first_error;
}

// Without CUDA neither NVENC nor NVDEC can be asked: both say why.
void fail(NvidiaGpu& gpu, const std::string& why) {
    gpu.nvenc.reason = why;
    gpu.nvdec_status = why;
}

void fail_all(std::vector<NvidiaGpu>& gpus, const std::string& why) {
    for (auto& gpu : gpus) fail(gpu, why);
}

}  // namespace

void probe_nvidia_codecs(std::vector<NvidiaGpu>& gpus, const ProbeLibraries& libs, const NvencProbeScope& scope) {
    if (gpus.empty()) return;  // nothing to ask CUDA about: do not load it
    // A fact about the card, known whatever the driver answers below.
    for (auto& gpu : gpus) gpu.nvenc.session_limit = nvenc_session_limit(gpu.name);
    const LibraryNames names(libs);
    const Cuda cu = load_cuda();
    if (!cu) {
        fail_all(gpus, fmt::format("CUDA library {} not found or incomplete", libs.cuda));
        return;
    }
    if (const CUresult r = cu->cuInit(0); r != CUDA_SUCCESS) {
        fail_all(gpus, "cuInit failed: " + cuda_error(*cu, r));
        return;
    }
    auto* by_bus_id = reinterpret_cast<DeviceGetByPciBusIdFn*>(dlsym(cu->lib, "cuDeviceGetByPCIBusId"));
    const Nvenc nvenc = load_nvenc();
    const Cuvid cuvid = load_cuvid();
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        NvidiaGpu& gpu = gpus[i];
        CUdevice device = 0;
        std::string why;
        if (!by_bus_id) {
            why = fmt::format("{} lacks cuDeviceGetByPCIBusId", libs.cuda);
        } else if (gpu.pci_bus_id.empty()) {
            why = "NVML gave no PCI bus id to find the GPU in CUDA";
        } else if (const CUresult r = device_by_bus_id(by_bus_id, gpu.pci_bus_id, &device); r != CUDA_SUCCESS) {
            why = fmt::format("not visible to CUDA (CUDA_VISIBLE_DEVICES?): {}", cuda_error(*cu, r));
        }
        if (!why.empty()) {
            fail(gpu, why);
            continue;
        }
        gpu.cuda_ordinal = ordinal_of(*cu, device);
        if (scope && !scope(static_cast<int>(i))) {
            fail(gpu, "not asked: the encode policy excludes this GPU");
            continue;
        }
        PrimaryContext ctx(*cu, device);
        if (ctx.result() != CUDA_SUCCESS) {
            fail(gpu, "cuDevicePrimaryCtxRetain failed: " + cuda_error(*cu, ctx.result()));
            continue;
        }
        probe_nvenc(nvenc.get(), libs, ctx.get(), gpu);
        probe_nvdec(*cu, cuvid.get(), libs, gpu);
        const bool decodes = std::any_of(gpu.nvdec.begin(), gpu.nvdec.end(), [](const DecodeCaps& c) { return c.supported; });
        if (gpu.nvenc.can_encode_av1() || decodes) ctx.keep();
    }
}

}  // namespace ladder::gpu
