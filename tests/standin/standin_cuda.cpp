// A stand-in for the CUDA driver library (libcuda.so.1), so FFmpeg's CUDA
// hwcontext, av1_nvenc and ladder's device probe run on machines without an
// NVIDIA GPU. Test equipment, never installed (tests/standin/README.md).
//
// Device memory is host memory: a CUdeviceptr is the address of a host
// allocation, so every copy, whatever its memory types, is a memcpy. Kernels,
// modules, graphics interop and arrays answer CUDA_ERROR_NOT_SUPPORTED: a
// filter that needs a kernel (scale_cuda) fails as it would on a driver
// without it, loudly.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <ffnvcodec/dynlink_cuda.h>

#include "tests/standin/standin_settings.hpp"

namespace standin = ladder::standin;

namespace {

constexpr CUresult kInvalidValue = static_cast<CUresult>(1);
constexpr CUresult kOutOfMemory = static_cast<CUresult>(2);
constexpr CUresult kNotInitialized = static_cast<CUresult>(3);
constexpr CUresult kInvalidDevice = static_cast<CUresult>(101);
constexpr CUresult kInvalidContext = static_cast<CUresult>(201);
constexpr CUresult kNotFound = static_cast<CUresult>(500);
constexpr CUresult kNotSupported = static_cast<CUresult>(801);

struct Context {
    CUdevice device = 0;
};

// Everything the library owns, under one lock.
class Driver {
public:
    static Driver& get() {
        static Driver d;
        return d;
    }

    bool initialized() {
        std::lock_guard lock(mu_);
        return initialized_;
    }
    void initialize() {
        std::lock_guard lock(mu_);
        initialized_ = true;
    }

    CUcontext create_context(CUdevice device) {
        std::lock_guard lock(mu_);
        auto ctx = std::make_unique<Context>(Context{device});
        CUcontext handle = reinterpret_cast<CUcontext>(ctx.get());
        contexts_[handle] = std::move(ctx);
        return handle;
    }
    bool destroy_context(CUcontext handle) {
        std::lock_guard lock(mu_);
        return contexts_.erase(handle) > 0;
    }
    const Context* context(CUcontext handle) {
        std::lock_guard lock(mu_);
        auto it = contexts_.find(handle);
        return it == contexts_.end() ? nullptr : it->second.get();
    }
    CUcontext primary(CUdevice device) {
        {
            std::lock_guard lock(mu_);
            auto it = primary_.find(device);
            if (it != primary_.end()) return it->second;
        }
        CUcontext ctx = create_context(device);
        std::lock_guard lock(mu_);
        primary_[device] = ctx;
        return ctx;
    }

    CUdeviceptr allocate(std::size_t bytes) {
        auto block = std::make_unique<std::byte[]>(std::max<std::size_t>(bytes, 1));
        const auto ptr = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(block.get()));
        std::lock_guard lock(mu_);
        memory_[ptr] = std::move(block);
        return ptr;
    }
    bool release(CUdeviceptr ptr) {
        std::lock_guard lock(mu_);
        return memory_.erase(ptr) > 0;
    }

private:
    std::mutex mu_;
    bool initialized_ = false;
    std::map<CUcontext, std::unique_ptr<Context>> contexts_;
    std::map<CUdevice, CUcontext> primary_;
    std::map<CUdeviceptr, std::unique_ptr<std::byte[]>> memory_;
};

// Each thread's context stack, as CUDA keeps it.
thread_local std::vector<CUcontext> context_stack;

bool valid_device(CUdevice d) { return d >= 0 && d < standin::settings().gpus; }

void* address(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)); }

const std::byte* source_of(const CUDA_MEMCPY2D& c) {
    const auto* base = static_cast<const std::byte*>(c.srcMemoryType == CU_MEMORYTYPE_HOST ? c.srcHost : address(c.srcDevice));
    return base + c.srcY * c.srcPitch + c.srcXInBytes;
}
std::byte* destination_of(const CUDA_MEMCPY2D& c) {
    auto* base = static_cast<std::byte*>(c.dstMemoryType == CU_MEMORYTYPE_HOST ? c.dstHost : address(c.dstDevice));
    return base + c.dstY * c.dstPitch + c.dstXInBytes;
}

CUresult copy_2d(const CUDA_MEMCPY2D* c) {
    if (!c) return kInvalidValue;
    if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY) return kNotSupported;
    const std::byte* src = source_of(*c);
    std::byte* dst = destination_of(*c);
    if (!src || !dst) return kInvalidValue;
    for (std::size_t row = 0; row < c->Height; ++row)
        std::memcpy(dst + row * c->dstPitch, src + row * c->srcPitch, c->WidthInBytes);
    return CUDA_SUCCESS;
}

struct ErrorText {
    int code;
    const char* name;
    const char* text;
};
constexpr ErrorText kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported (stand-in driver)"},
};

const ErrorText* error_text(CUresult r) {
    for (const auto& e : kErrors)
        if (e.code == static_cast<int>(r)) return &e;
    return nullptr;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned int) {
    Driver::get().initialize();
    return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* version) {
    if (!version) return kInvalidValue;
    *version = 12080;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* count) {
    if (!count) return kInvalidValue;
    if (!Driver::get().initialized()) return kNotInitialized;
    *count = standin::settings().gpus;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    if (!device) return kInvalidValue;
    if (!valid_device(ordinal)) return kInvalidDevice;
    *device = ordinal;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
    if (!value) return kInvalidValue;
    if (!valid_device(device)) return kInvalidDevice;
    switch (static_cast<int>(attribute)) {
        case 14: *value = 512; break;   // TEXTURE_ALIGNMENT: what real GPUs report
        case 75: *value = 8; break;     // COMPUTE_CAPABILITY_MAJOR
        case 76: *value = 9; break;     // COMPUTE_CAPABILITY_MINOR
        case 33: *value = 0x17 + 0x10 * device; break;  // PCI_BUS_ID, as pci_bus_id() writes it
        default: *value = 0; break;
    }
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
    if (!name || length <= 0) return kInvalidValue;
    if (!valid_device(device)) return kInvalidDevice;
    std::snprintf(name, static_cast<std::size_t>(length), "%s", standin::settings().name.c_str());
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice device) {
    if (!uuid) return kInvalidValue;
    if (!valid_device(device)) return kInvalidDevice;
    std::memset(uuid, 0, sizeof *uuid);
    uuid->bytes[0] = static_cast<char>(0x5a);
    uuid->bytes[15] = static_cast<char>(device);
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) { return cuDeviceGetUuid(uuid, device); }
CUresult cuDeviceGetLuid(char*, unsigned int*, CUdevice) { return kNotSupported; }
CUresult cuDeviceGetByPCIBusId(CUdevice* device, const char* bus_id) {
    if (!device || !bus_id) return kInvalidValue;
    const int ordinal = standin::ordinal_of_bus_id(bus_id);
    if (ordinal < 0) return kInvalidDevice;
    *device = ordinal;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
    if (!bus_id || length <= 0) return kInvalidValue;
    if (!valid_device(device)) return kInvalidDevice;
    // CUDA writes a 4-digit domain; NVML an 8-digit one.
    std::snprintf(bus_id, static_cast<std::size_t>(length), "%s", standin::pci_bus_id(device).substr(4).c_str());
    return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice device) {
    if (!bytes) return kInvalidValue;
    if (!valid_device(device)) return kInvalidDevice;
    *bytes = static_cast<std::size_t>(standin::settings().memory_mib) << 20;
    return CUDA_SUCCESS;
}
CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device) {
    if (!major || !minor) return kInvalidValue;
    if (!valid_device(device)) return kInvalidDevice;
    *major = 8;
    *minor = 9;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned int, CUdevice device) {
    if (!ctx) return kInvalidValue;
    if (!Driver::get().initialized()) return kNotInitialized;
    if (!valid_device(device)) return kInvalidDevice;
    *ctx = Driver::get().create_context(device);
    context_stack.push_back(*ctx);  // a new context is current on the calling thread
    return CUDA_SUCCESS;
}
CUresult cuCtxDestroy_v2(CUcontext ctx) {
    if (!Driver::get().destroy_context(ctx)) return kInvalidContext;
    std::erase(context_stack, ctx);
    return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext* ctx) {
    if (!ctx) return kInvalidValue;
    *ctx = context_stack.empty() ? nullptr : context_stack.back();
    return CUDA_SUCCESS;
}
CUresult cuCtxSetLimit(CUlimit, std::size_t) { return CUDA_SUCCESS; }
CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
    if (!Driver::get().context(ctx)) return kInvalidContext;
    context_stack.push_back(ctx);
    return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent_v2(CUcontext* ctx) {
    if (context_stack.empty()) return kInvalidContext;
    if (ctx) *ctx = context_stack.back();
    context_stack.pop_back();
    return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice* device) {
    if (!device) return kInvalidValue;
    if (context_stack.empty()) return kInvalidContext;
    const Context* c = Driver::get().context(context_stack.back());
    if (!c) return kInvalidContext;
    *device = c->device;
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice device) {
    if (!ctx) return kInvalidValue;
    if (!valid_device(device)) return kInvalidDevice;
    *ctx = Driver::get().primary(device);
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice device) { return valid_device(device) ? CUDA_SUCCESS : kInvalidDevice; }
CUresult cuDevicePrimaryCtxSetFlags(CUdevice device, unsigned int) {
    return valid_device(device) ? CUDA_SUCCESS : kInvalidDevice;
}
CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned int* flags, int* active) {
    if (!valid_device(device)) return kInvalidDevice;
    if (flags) *flags = 0;
    if (active) *active = 0;
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxReset(CUdevice device) { return valid_device(device) ? CUDA_SUCCESS : kInvalidDevice; }

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, std::size_t bytes) {
    if (!ptr) return kInvalidValue;
    if (context_stack.empty()) return kInvalidContext;
    if (bytes > (static_cast<std::size_t>(standin::settings().memory_mib) << 20)) return kOutOfMemory;
    *ptr = Driver::get().allocate(bytes);
    return CUDA_SUCCESS;
}
CUresult cuMemAllocPitch_v2(CUdeviceptr* ptr, std::size_t* pitch, std::size_t width, std::size_t height, unsigned int) {
    if (!pitch) return kInvalidValue;
    *pitch = (width + 511) / 512 * 512;
    return cuMemAlloc_v2(ptr, *pitch * height);
}
CUresult cuMemAllocManaged(CUdeviceptr* ptr, std::size_t bytes, unsigned int) { return cuMemAlloc_v2(ptr, bytes); }
CUresult cuMemFree_v2(CUdeviceptr ptr) { return Driver::get().release(ptr) ? CUDA_SUCCESS : kInvalidValue; }
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, std::size_t n, CUstream) {
    std::memset(address(dst), value, n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, std::size_t n) {
    std::memmove(address(dst), address(src), n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream) { return cuMemcpy(dst, src, n); }
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* copy) { return copy_2d(copy); }
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* copy, CUstream) { return copy_2d(copy); }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, std::size_t n) {
    std::memcpy(address(dst), src, n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, std::size_t n, CUstream) {
    return cuMemcpyHtoD_v2(dst, src, n);
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t n) {
    std::memcpy(dst, address(src), n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, std::size_t n, CUstream) { return cuMemcpyDtoH_v2(dst, src, n); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t n) { return cuMemcpy(dst, src, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream) { return cuMemcpy(dst, src, n); }

CUresult cuGetErrorName(CUresult error, const char** text) {
    if (!text) return kInvalidValue;
    const ErrorText* e = error_text(error);
    *text = e ? e->name : "CUDA_ERROR_UNKNOWN";
    return e ? CUDA_SUCCESS : kInvalidValue;
}
CUresult cuGetErrorString(CUresult error, const char** text) {
    if (!text) return kInvalidValue;
    const ErrorText* e = error_text(error);
    *text = e ? e->text : "unknown error";
    return e ? CUDA_SUCCESS : kInvalidValue;
}

// Work is done when it is issued: streams and events are always complete.
CUresult cuStreamCreate(CUstream* stream, unsigned int) {
    if (!stream) return kInvalidValue;
    *stream = reinterpret_cast<CUstream>(static_cast<std::uintptr_t>(0x5157));
    return CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamDestroy_v2(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback* callback, void* user, unsigned int) {
    if (callback) (*callback)(stream, CUDA_SUCCESS, user);
    return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) { return CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent* event, unsigned int) {
    if (!event) return kInvalidValue;
    *event = reinterpret_cast<CUevent>(static_cast<std::uintptr_t>(0xe7e7));
    return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventQuery(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }

// No kernels, modules, textures, graphics interop or arrays.
CUresult cuLaunchKernel(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                        unsigned int, CUstream, void**, void**) {
    return kNotSupported;
}
CUresult cuLinkCreate(unsigned int, CUjit_option*, void**, CUlinkState*) { return kNotSupported; }
CUresult cuLinkAddData(CUlinkState, CUjitInputType, void*, std::size_t, const char*, unsigned int, CUjit_option*, void**) {
    return kNotSupported;
}
CUresult cuLinkComplete(CUlinkState, void**, std::size_t*) { return kNotSupported; }
CUresult cuLinkDestroy(CUlinkState) { return kNotSupported; }
CUresult cuModuleLoadData(CUmodule*, const void*) { return kNotSupported; }
CUresult cuModuleUnload(CUmodule) { return kNotSupported; }
CUresult cuModuleGetFunction(CUfunction*, CUmodule, const char*) { return kNotFound; }
CUresult cuModuleGetGlobal(CUdeviceptr*, std::size_t*, CUmodule, const char*) { return kNotFound; }
CUresult cuTexObjectCreate(CUtexObject*, const CUDA_RESOURCE_DESC*, const CUDA_TEXTURE_DESC*, const CUDA_RESOURCE_VIEW_DESC*) {
    return kNotSupported;
}
CUresult cuTexObjectDestroy(CUtexObject) { return kNotSupported; }
CUresult cuGLGetDevices_v2(unsigned int*, CUdevice*, unsigned int, CUGLDeviceList) { return kNotSupported; }
CUresult cuGraphicsGLRegisterImage(CUgraphicsResource*, GLuint, GLenum, unsigned int) { return kNotSupported; }
CUresult cuGraphicsUnregisterResource(CUgraphicsResource) { return kNotSupported; }
CUresult cuGraphicsMapResources(unsigned int, CUgraphicsResource*, CUstream) { return kNotSupported; }
CUresult cuGraphicsUnmapResources(unsigned int, CUgraphicsResource*, CUstream) { return kNotSupported; }
CUresult cuGraphicsSubResourceGetMappedArray(CUarray*, CUgraphicsResource, unsigned int, unsigned int) {
    return kNotSupported;
}
CUresult cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr*, std::size_t*, CUgraphicsResource) { return kNotSupported; }
CUresult cuArrayCreate_v2(CUarray*, const CUDA_ARRAY_DESCRIPTOR*) { return kNotSupported; }
CUresult cuArray3DCreate_v2(CUarray*, const CUDA_ARRAY3D_DESCRIPTOR*) { return kNotSupported; }
CUresult cuArrayDestroy(CUarray) { return kNotSupported; }

}  // extern "C"
