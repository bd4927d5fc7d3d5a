#pragma once
// Hand-built inventories for the schema and table tests: a machine with an
// H100 (NVDEC, no NVENC), a GeForce that encodes AV1 and an Intel Arc, and a
// machine without any GPU.
#include "gpu/device_inventory.hpp"

namespace ladder::test {

inline gpu::DeviceInventory inventory_with_gpus() {
    gpu::DeviceInventory inv;
    inv.cpu.cores = 16;
    inv.cpu.model = "Test CPU";
    inv.cpu.available_memory_bytes = 64ull << 30;
    inv.cpu.av1_encoders = {{"libsvtav1", "v1.4.1"}, {"libaom-av1", "v3.6.0"}};
    inv.nvidia_driver_version = "580.159.04";

    gpu::NvidiaGpu h100;
    h100.index = 0;
    h100.nvml_index = 0;
    h100.cuda_ordinal = 1;
    h100.name = "NVIDIA H100 80GB HBM3";
    h100.uuid = "GPU-11111111-2222-3333-4444-555555555555";
    h100.pci_bus_id = "00000000:17:00.0";
    h100.memory_total_bytes = 81559ull << 20;
    h100.nvenc.reason = "no NVENC engine";
    h100.nvdec = {{"av1", 8, false, 0, 0, 0}, {"hevc", 8, true, 8192, 8192, 7}, {"h264", 8, true, 4096, 4096, 7}};
    inv.nvidia.push_back(h100);

    gpu::NvidiaGpu geforce;
    geforce.index = 1;
    geforce.nvml_index = 1;
    geforce.cuda_ordinal = 0;
    geforce.name = "NVIDIA GeForce RTX 4090";
    geforce.pci_bus_id = "00000000:65:00.0";
    geforce.memory_total_bytes = 24ull << 30;
    geforce.nvenc.session_opened = true;
    geforce.nvenc.av1_encode = true;
    geforce.nvenc.session_limit = 8;
    geforce.nvdec_status = "NVDEC library libnvcuvid.so.1 not found";
    inv.nvidia.push_back(geforce);

    gpu::IntelGpu arc;
    arc.index = 2;
    arc.name = "Intel(R) Arc(TM) A770 Graphics";
    arc.implementation = "mfx-gen";
    arc.device_id = "56a0/0";
    arc.adapter = 0;
    arc.render_node = "/dev/dri/renderD129";
    arc.av1_encode = true;
    arc.av1_decode = true;
    inv.intel.push_back(arc);

    inv.ffmpeg_version = "7.1.1";
    inv.libavcodec_version = "61.19.101";
    inv.ffmpeg_av1_nvenc = true;
    inv.ffmpeg_av1_qsv = true;
    inv.ffmpeg_nvdec = true;
    return inv;
}

inline gpu::DeviceInventory inventory_without_gpus() {
    gpu::DeviceInventory inv;
    inv.cpu.cores = 2;
    inv.cpu.model = "Test CPU";
    inv.cpu.available_memory_bytes = 3ull << 30;
    inv.cpu.av1_encoders = {{"libsvtav1", "v1.4.1"}};
    inv.nvidia_status = "NVML library libnvidia-ml.so.1 not found (no NVIDIA driver installed)";
    inv.intel_status = "no Intel GPU found through oneVPL";
    inv.ffmpeg_version = "5.1.6-0+deb12u1";
    inv.libavcodec_version = "59.37.100";
    inv.ffmpeg_nvdec = true;
    return inv;
}

}  // namespace ladder::test
