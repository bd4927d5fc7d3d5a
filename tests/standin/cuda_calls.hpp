// The few CUDA driver calls the stand-in NVENC makes, looked up in whatever
// libcuda.so.1 the process has: the stand-in CUDA driver here, the real one
// on a GPU machine (where NVDEC frames in device memory reach it).
#pragma once

#include <ffnvcodec/dynlink_cuda.h>

#include <string>

namespace ladder::standin {

struct CudaCalls {
    tcuCtxPushCurrent_v2* push = nullptr;
    tcuCtxPopCurrent_v2* pop = nullptr;
    tcuCtxGetDevice* device = nullptr;
    tcuDeviceGetPCIBusId* bus_id = nullptr;
    tcuMemcpy2D_v2* copy_2d = nullptr;

    bool complete() const { return push && pop && device && bus_id && copy_2d; }
};

// Looked up once; `complete()` is false without a CUDA driver.
const CudaCalls& cuda();

// The CUDA ordinal of the device behind `ctx`, or -1. `bus_id` gets its PCI
// bus id.
int device_of(CUcontext ctx, std::string& bus_id);

}  // namespace ladder::standin
