#include "gpu/device_inventory.hpp"

#include "gpu/cpu_info.hpp"
#include "gpu/ffmpeg_caps.hpp"
#include "gpu/intel_probe.hpp"
#include "gpu/nvidia_codec_probe.hpp"
#include "gpu/nvml_probe.hpp"
#include "gpu/software_encoders.hpp"

namespace ladder::gpu {

DeviceInventory probe_devices() { return probe_devices(ProbeLibraries{}); }

DeviceInventory probe_devices(const ProbeLibraries& libraries, const NvencProbeScope& scope) {
    DeviceInventory inv;

    const CpuInfo cpu = read_cpu_info();
    inv.cpu.cores = cpu.cores;
    inv.cpu.model = cpu.model;
    inv.cpu.available_memory_bytes = cpu.available_memory_bytes;
    inv.cpu.av1_encoders = probe_software_av1_encoders();

    NvmlInventory nvml = probe_nvml(libraries.nvml);
    inv.nvidia_status = std::move(nvml.status);
    inv.nvidia_driver_version = std::move(nvml.driver_version);
    inv.nvidia = std::move(nvml.gpus);
    probe_nvidia_codecs(inv.nvidia, libraries, scope);

    IntelInventory intel = probe_intel(libraries.vpl);
    inv.intel_status = std::move(intel.status);
    inv.intel = std::move(intel.gpus);

    // ladder's GPU index: NVIDIA in NVML (PCI bus) order, then Intel.
    int index = 0;
    for (auto& gpu : inv.nvidia) gpu.index = index++;
    for (auto& gpu : inv.intel) gpu.index = index++;

    probe_ffmpeg(inv);
    return inv;
}

}  // namespace ladder::gpu
