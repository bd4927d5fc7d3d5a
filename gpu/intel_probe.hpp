#pragma once
// Intel GPUs as the oneVPL dispatcher (libvpl.so.2) lists its hardware
// implementations: name, device id, render node, AV1 encode and decode.
// The dispatcher is loaded at run time, so ladder has no link-time
// dependency on it and runs where it is missing.
#include <string>
#include <vector>

#include "gpu/device_inventory.hpp"

namespace ladder::gpu {

struct IntelInventory {
    std::string status;  // empty when oneVPL listed at least one GPU; else why not
    std::vector<IntelGpu> gpus;
};

// `soname`: ProbeLibraries::vpl.
IntelInventory probe_intel(const std::string& soname);

}  // namespace ladder::gpu
