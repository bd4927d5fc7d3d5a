// The table `ladder devices` prints, from hand-built inventories: GPU blocks
// with ladder's index, NVENC's answer with its reason, NVDEC per codec, the
// Intel block, and the "No NVIDIA GPU: <status>" lines of a GPU-less machine.
#include "cli/devices_table.hpp"

#include <gtest/gtest.h>

#include "device_inventory_fixture.hpp"

namespace ladder::test {
namespace {

TEST(DevicesTable, MachineWithGpus) {
    const std::string expected =
        "CPU  Test CPU: 16 cores, 64.0 GiB available; AV1 encoders: libsvtav1 v1.4.1, libaom-av1 v3.6.0\n"
        "NVIDIA driver 580.159.04\n"
        "GPU 0  NVIDIA H100 80GB HBM3  (PCI 00000000:17:00.0, 80 GiB, UUID GPU-11111111-2222-3333-4444-555555555555)\n"
        "  CUDA device 1\n"
        "  NVENC: no — no NVENC engine\n"
        "  NVDEC: av1 8-bit no, hevc 8-bit up to 8192x8192 (7 engines), h264 8-bit up to 4096x4096 (7 engines)\n"
        "GPU 1  NVIDIA GeForce RTX 4090  (PCI 00000000:65:00.0, 24 GiB)\n"
        "  CUDA device 0\n"
        "  NVENC: yes — AV1, up to 8 sessions\n"
        "  NVDEC: unknown — NVDEC library libnvcuvid.so.1 not found\n"
        "GPU 2  Intel(R) Arc(TM) A770 Graphics  (device 56a0/0, /dev/dri/renderD129, oneVPL mfx-gen)\n"
        "  QSV AV1 encode: yes\n"
        "  QSV AV1 decode: yes\n"
        "FFmpeg 7.1.1: av1_nvenc yes (for --nvenc-client ffmpeg), av1_qsv yes, NVDEC+scale_cuda yes\n";
    EXPECT_EQ(cli::render_devices_table(inventory_with_gpus()), expected);
}

TEST(DevicesTable, MachineWithoutGpus) {
    const std::string expected =
        "CPU  Test CPU: 2 cores, 3.0 GiB available; AV1 encoders: libsvtav1 v1.4.1\n"
        "No NVIDIA GPU: NVML library libnvidia-ml.so.1 not found (no NVIDIA driver installed)\n"
        "No Intel GPU: no Intel GPU found through oneVPL\n"
        "FFmpeg 5.1.6-0+deb12u1: av1_nvenc no (for --nvenc-client ffmpeg), av1_qsv no, NVDEC+scale_cuda yes\n";
    EXPECT_EQ(cli::render_devices_table(inventory_without_gpus()), expected);
}

TEST(DevicesTable, IntelWithoutAv1EncodeSaysWhy) {
    gpu::DeviceInventory inv = inventory_with_gpus();
    inv.intel[0].av1_encode = false;
    inv.intel[0].reason = "Quick Sync without AV1 encode (needs Arc, Meteor Lake or newer)";
    const std::string table = cli::render_devices_table(inv);
    EXPECT_NE(table.find("  QSV AV1 encode: no — Quick Sync without AV1 encode (needs Arc, Meteor Lake or newer)\n"),
              std::string::npos)
        << table;
}

}  // namespace
}  // namespace ladder::test
