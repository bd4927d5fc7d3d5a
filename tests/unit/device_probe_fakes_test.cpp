// The NVML and oneVPL probers against stand-in libraries (tests/fakes/):
// their real parsing runs without an NVIDIA driver or Intel GPU. Checks what
// they read, that an inaccessible GPU and a software implementation are
// left out, that two runtimes of one Intel adapter merge, that GPU indices
// run NVIDIA first then Intel, and that every NVML init and every oneVPL
// description handed out is given back.
#include <gtest/gtest.h>

#include "gpu/device_inventory.hpp"
#include "gpu/dynamic_library.hpp"
#include "gpu/intel_probe.hpp"
#include "gpu/nvml_probe.hpp"
#include "text_contains.hpp"

namespace ladder::gpu {
namespace {

using ladder::test::contains;

TEST(DeviceProbeFakes, NvmlListsTheGpusItMayOpen) {
    // Held open so the fake's counters outlive the probe's own handle.
    const DynamicLibrary fake(LADDER_FAKE_NVML);
    ASSERT_TRUE(fake.loaded()) << fake.error();

    const NvmlInventory nvml = probe_nvml(LADDER_FAKE_NVML);
    EXPECT_EQ(nvml.status, "");
    EXPECT_EQ(nvml.driver_version, "999.12.34");
    ASSERT_EQ(nvml.gpus.size(), 2u) << "GPU 1 refuses a handle and is left out";
    EXPECT_EQ(nvml.gpus[0].nvml_index, 0);
    EXPECT_EQ(nvml.gpus[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(nvml.gpus[0].uuid, "GPU-fake-0");
    EXPECT_EQ(nvml.gpus[0].pci_bus_id, "00000000:17:00.0");
    EXPECT_EQ(nvml.gpus[0].memory_total_bytes, 81559ull << 20);
    EXPECT_EQ(nvml.gpus[1].nvml_index, 2);
    EXPECT_EQ(nvml.gpus[1].name, "NVIDIA GeForce RTX 4090");
    EXPECT_EQ(nvml.gpus[1].pci_bus_id, "00000000:65:00.0");

    auto* open_sessions = fake.function<int()>("fake_nvml_open_sessions");
    ASSERT_NE(open_sessions, nullptr);
    EXPECT_EQ(open_sessions(), 0) << "nvmlInit_v2 without nvmlShutdown";
}

TEST(DeviceProbeFakes, IntelImplementations) {
    const DynamicLibrary fake(LADDER_FAKE_VPL);
    ASSERT_TRUE(fake.loaded()) << fake.error();

    const IntelInventory intel = probe_intel(LADDER_FAKE_VPL);
    EXPECT_EQ(intel.status, "");
    ASSERT_EQ(intel.gpus.size(), 2u) << "the Media SDK twin of 56a0/0 merges, the software implementation is no GPU";

    const IntelGpu& arc = intel.gpus[0];
    EXPECT_EQ(arc.name, "Intel(R) Arc(TM) A770 Graphics");
    EXPECT_EQ(arc.implementation, "mfx-gen");
    EXPECT_EQ(arc.device_id, "56a0/0");
    EXPECT_EQ(arc.adapter, 0);
    EXPECT_EQ(arc.render_node, "/dev/dri/renderD128");
    EXPECT_TRUE(arc.av1_encode);
    EXPECT_TRUE(arc.av1_decode);
    EXPECT_EQ(arc.reason, "");

    const IntelGpu& tgl = intel.gpus[1];
    EXPECT_EQ(tgl.name, "mfx-gen") << "without an extended device id the implementation name stands in";
    EXPECT_EQ(tgl.device_id, "9a49/1");
    EXPECT_EQ(tgl.adapter, 1);
    EXPECT_EQ(tgl.render_node, "");
    EXPECT_FALSE(tgl.av1_encode);
    EXPECT_TRUE(tgl.av1_decode);
    EXPECT_TRUE(contains(tgl.reason, "without AV1 encode")) << tgl.reason;

    auto* balanced = fake.function<int()>("fake_vpl_balanced");
    auto* filtered = fake.function<int()>("fake_vpl_hardware_filter_asked");
    ASSERT_NE(balanced, nullptr);
    ASSERT_NE(filtered, nullptr);
    EXPECT_EQ(balanced(), 1) << "every MFXLoad unloaded, every description released";
    EXPECT_EQ(filtered(), 1) << "the probe asks the dispatcher for hardware implementations";
}

TEST(DeviceProbeFakes, IndicesRunNvidiaThenIntel) {
    ProbeLibraries libs;
    libs.nvml = LADDER_FAKE_NVML;
    libs.cuda = "libladder-test-missing-cuda.so.1";
    libs.vpl = LADDER_FAKE_VPL;
    const DeviceInventory inv = probe_devices(libs);
    EXPECT_EQ(inv.nvidia_status, "");
    EXPECT_EQ(inv.nvidia_driver_version, "999.12.34");
    ASSERT_EQ(inv.nvidia.size(), 2u);
    ASSERT_EQ(inv.intel.size(), 2u);
    EXPECT_EQ(inv.nvidia[0].index, 0);
    EXPECT_EQ(inv.nvidia[1].index, 1);
    EXPECT_EQ(inv.intel[0].index, 2);
    EXPECT_EQ(inv.intel[1].index, 3);
    for (const auto& g : inv.nvidia) {
        EXPECT_FALSE(g.nvenc.can_encode_av1());
        EXPECT_TRUE(contains(g.nvenc.reason, "libladder-test-missing-cuda.so.1")) << g.nvenc.reason;
    }
    EXPECT_EQ(inv.nvidia[1].nvenc.session_limit, 8);
}

}  // namespace
}  // namespace ladder::gpu
