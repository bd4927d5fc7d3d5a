#pragma once
// NVIDIA GPUs as NVML lists them (PCI bus order): who they are, not what
// they can encode (nvidia_codec_probe does that).
#include <string>
#include <vector>

#include "gpu/device_inventory.hpp"

namespace ladder::gpu {

struct NvmlInventory {
    std::string status;          // empty when NVML answered; else why there is no list
    std::string driver_version;  // "580.159.04"
    std::vector<NvidiaGpu> gpus;  // nvml_index, name, uuid, pci_bus_id, memory_total_bytes
};

// `soname`: ProbeLibraries::nvml.
NvmlInventory probe_nvml(const std::string& soname);

}  // namespace ladder::gpu
