#pragma once
// What each NVIDIA GPU can encode and decode, asked through the Video Codec
// SDK (CUDA driver API, NVENC, NVDEC) loaded at run time with ffnvcodec's
// loader: the CUDA ordinal of the GPU's PCI bus id, whether an NVENC
// session opens and lists AV1, and NVDEC's decode capabilities. Every
// failure becomes a reason or status on the GPU, never an exception.
#include <string>
#include <vector>

#include "gpu/device_inventory.hpp"

namespace ladder::gpu {

// Fills cuda_ordinal, nvenc, nvdec and nvdec_status of GPUs that NVML listed
// (pci_bus_id and name must be set).
void probe_nvidia_codecs(std::vector<NvidiaGpu>& gpus, const ProbeLibraries& libraries = {},
                         const NvencProbeScope& scope = {});

}  // namespace ladder::gpu
