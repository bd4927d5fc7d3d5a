// Probing with driver libraries that are not there (the usual machine: no
// NVIDIA driver, no oneVPL runtime): every prober answers with a status that
// names the library, never a crash or an exception. Library names are
// parameters (ProbeLibraries), so this holds on machines that have GPUs too.
#include <gtest/gtest.h>

#include "gpu/device_inventory.hpp"
#include "gpu/dynamic_library.hpp"
#include "gpu/intel_probe.hpp"
#include "gpu/nvidia_codec_probe.hpp"
#include "gpu/nvml_probe.hpp"
#include "gpu/software_encoders.hpp"
#include "text_contains.hpp"

namespace ladder::gpu {
namespace {

using ladder::test::contains;

ProbeLibraries missing_libraries() {
    ProbeLibraries libs;
    libs.nvml = "libladder-test-missing-nvml.so.1";
    libs.cuda = "libladder-test-missing-cuda.so.1";
    libs.nvenc = "libladder-test-missing-encode.so.1";
    libs.cuvid = "libladder-test-missing-cuvid.so.1";
    libs.vpl = "libladder-test-missing-vpl.so.2";
    return libs;
}

TEST(DeviceProbeMissing, DynamicLibrary) {
    const DynamicLibrary lib("libladder-test-missing.so.1");
    EXPECT_FALSE(lib.loaded());
    EXPECT_FALSE(lib.error().empty());
    EXPECT_EQ(lib.symbol("anything"), nullptr);
}

TEST(DeviceProbeMissing, Nvml) {
    const NvmlInventory nvml = probe_nvml(missing_libraries().nvml);
    EXPECT_TRUE(nvml.gpus.empty());
    EXPECT_EQ(nvml.status, "NVML library libladder-test-missing-nvml.so.1 not found (no NVIDIA driver installed)");
    EXPECT_TRUE(nvml.driver_version.empty());
}

TEST(DeviceProbeMissing, OneVpl) {
    const IntelInventory intel = probe_intel(missing_libraries().vpl);
    EXPECT_TRUE(intel.gpus.empty());
    EXPECT_TRUE(contains(intel.status, "oneVPL library libladder-test-missing-vpl.so.2 not found")) << intel.status;
}

TEST(DeviceProbeMissing, CudaForAGpuNvmlListed) {
    std::vector<NvidiaGpu> gpus(2);
    gpus[0].name = "NVIDIA H100 80GB HBM3";
    gpus[0].pci_bus_id = "00000000:17:00.0";
    gpus[1].name = "NVIDIA GeForce RTX 4090";
    gpus[1].pci_bus_id = "00000000:65:00.0";
    probe_nvidia_codecs(gpus, missing_libraries());
    for (const auto& g : gpus) {
        EXPECT_EQ(g.cuda_ordinal, -1);
        EXPECT_FALSE(g.nvenc.can_encode_av1());
        EXPECT_TRUE(contains(g.nvenc.reason, "libladder-test-missing-cuda.so.1")) << g.nvenc.reason;
        EXPECT_EQ(g.nvdec_status, g.nvenc.reason);
        EXPECT_TRUE(g.nvdec.empty());
    }
    // The session limit is a fact about the card, known without the driver.
    EXPECT_EQ(gpus[1].nvenc.session_limit, 8);
    EXPECT_EQ(gpus[0].nvenc.session_limit, std::nullopt);
}

TEST(DeviceProbeMissing, WholeProbe) {
    const DeviceInventory inv = probe_devices(missing_libraries());
    EXPECT_TRUE(inv.nvidia.empty());
    EXPECT_TRUE(contains(inv.nvidia_status, "libladder-test-missing-nvml.so.1")) << inv.nvidia_status;
    EXPECT_TRUE(inv.intel.empty());
    EXPECT_TRUE(contains(inv.intel_status, "libladder-test-missing-vpl.so.2")) << inv.intel_status;
    EXPECT_GE(inv.cpu.cores, 1);
    EXPECT_FALSE(inv.ffmpeg_version.empty());
    EXPECT_FALSE(inv.libavcodec_version.empty());
}

TEST(DeviceProbeMissing, LibraryVersionOfWhatIsNotLoaded) {
    EXPECT_EQ(loaded_library_version("libladder-test-missing.so", "some_version"), "unknown");
    // Loaded (libavcodec links it), but without such a symbol.
    EXPECT_EQ(loaded_library_version("libSvtAv1Enc.so", "ladder_no_such_symbol"), "unknown");
}

TEST(DeviceProbeMissing, SoftwareEncodersHaveVersions) {
    const auto encoders = probe_software_av1_encoders();
    bool svt = false;
    for (const auto& e : encoders) {
        EXPECT_FALSE(e.version.empty()) << e.name;
        if (e.name == "libsvtav1") {
            svt = true;
            EXPECT_NE(e.version, "unknown") << "SVT-AV1 is loaded by libavcodec; its version must be read";
        }
    }
    EXPECT_TRUE(svt) << "ladder's encoders need libsvtav1 in libavcodec";
}

}  // namespace
}  // namespace ladder::gpu
