#include "tests/standin/cuda_calls.hpp"

#include <dlfcn.h>

namespace ladder::standin {

namespace {
template <typename Fn>
Fn* symbol(void* lib, const char* name) {
    return reinterpret_cast<Fn*>(dlsym(lib, name));
}

CudaCalls load() {
    CudaCalls c;
    // The library FFmpeg already loaded; never unloaded (process lifetime).
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) return c;
    c.push = symbol<tcuCtxPushCurrent_v2>(lib, "cuCtxPushCurrent_v2");
    c.pop = symbol<tcuCtxPopCurrent_v2>(lib, "cuCtxPopCurrent_v2");
    c.device = symbol<tcuCtxGetDevice>(lib, "cuCtxGetDevice");
    c.bus_id = symbol<tcuDeviceGetPCIBusId>(lib, "cuDeviceGetPCIBusId");
    c.copy_2d = symbol<tcuMemcpy2D_v2>(lib, "cuMemcpy2D_v2");
    return c;
}
}  // namespace

const CudaCalls& cuda() {
    static const CudaCalls c = load();
    return c;
}

int device_of(CUcontext ctx, std::string& bus_id) {
    const CudaCalls& cu = cuda();
    if (!cu.complete() || !ctx || cu.push(ctx) != CUDA_SUCCESS) return -1;
    CUdevice device = -1;
    const bool ok = cu.device(&device) == CUDA_SUCCESS;
    CUcontext popped = nullptr;
    cu.pop(&popped);
    if (!ok) return -1;
    char id[32] = {};
    if (cu.bus_id(id, sizeof id, device) == CUDA_SUCCESS) bus_id = id;
    return device;
}

}  // namespace ladder::standin
