// to_json(DeviceInventory): the schema of `ladder devices --json`
// (docs/devices-json.md) from hand-built inventories: every documented key,
// its type, nulls for absent text, and values carried through unchanged.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "device_inventory_fixture.hpp"
#include "gpu/device_inventory.hpp"

namespace ladder::test {
namespace {

using nlohmann::json;

std::set<std::string> keys_of(const json& j) {
    std::set<std::string> keys;
    for (const auto& [key, value] : j.items()) keys.insert(key);
    return keys;
}

TEST(DevicesJson, TopLevelAndCpu) {
    const json j = gpu::to_json(inventory_with_gpus());
    EXPECT_EQ(keys_of(j), (std::set<std::string>{"schema_version", "cpu", "nvidia", "intel", "ffmpeg"}));
    EXPECT_EQ(j["schema_version"], 1);
    EXPECT_EQ(keys_of(j["cpu"]), (std::set<std::string>{"cores", "model", "available_memory_bytes", "av1_encoders"}));
    EXPECT_EQ(j["cpu"]["cores"], 16);
    EXPECT_EQ(j["cpu"]["model"], "Test CPU");
    EXPECT_EQ(j["cpu"]["available_memory_bytes"], 64ull << 30);
    ASSERT_EQ(j["cpu"]["av1_encoders"].size(), 2u);
    EXPECT_EQ(j["cpu"]["av1_encoders"][0], (json{{"name", "libsvtav1"}, {"version", "v1.4.1"}}));
    EXPECT_EQ(j["cpu"]["av1_encoders"][1]["name"], "libaom-av1");
}

TEST(DevicesJson, NvidiaGpuWithoutNvenc) {
    const json j = gpu::to_json(inventory_with_gpus());
    const json& nvidia = j["nvidia"];
    EXPECT_EQ(keys_of(nvidia), (std::set<std::string>{"status", "driver_version", "gpus"}));
    EXPECT_TRUE(nvidia["status"].is_null());
    EXPECT_EQ(nvidia["driver_version"], "580.159.04");
    ASSERT_EQ(nvidia["gpus"].size(), 2u);
    const json& h100 = nvidia["gpus"][0];
    EXPECT_EQ(keys_of(h100), (std::set<std::string>{"index", "nvml_index", "cuda_ordinal", "name", "uuid", "pci_bus_id",
                                                     "memory_total_bytes", "nvenc", "nvdec", "nvdec_status"}));
    EXPECT_EQ(h100["index"], 0);
    EXPECT_EQ(h100["nvml_index"], 0);
    EXPECT_EQ(h100["cuda_ordinal"], 1);
    EXPECT_EQ(h100["name"], "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(h100["uuid"], "GPU-11111111-2222-3333-4444-555555555555");
    EXPECT_EQ(h100["pci_bus_id"], "00000000:17:00.0");
    EXPECT_EQ(h100["memory_total_bytes"], 81559ull << 20);
    EXPECT_EQ(h100["nvenc"], (json{{"can_encode_av1", false},
                                   {"session_opened", false},
                                   {"av1_encode", false},
                                   {"session_limit", nullptr},
                                   {"engines", nullptr},
                                   {"reason", "no NVENC engine"}}));
    ASSERT_EQ(h100["nvdec"].size(), 3u);
    EXPECT_EQ(h100["nvdec"][1], (json{{"codec", "hevc"},
                                      {"bit_depth", 8},
                                      {"supported", true},
                                      {"max_width", 8192},
                                      {"max_height", 8192},
                                      {"engines", 7}}));
    EXPECT_EQ(h100["nvdec"][0]["supported"], false);
    EXPECT_TRUE(h100["nvdec_status"].is_null());
}

TEST(DevicesJson, NvidiaGpuThatEncodesAv1) {
    const json g = gpu::to_json(inventory_with_gpus())["nvidia"]["gpus"][1];
    EXPECT_EQ(g["index"], 1);
    EXPECT_EQ(g["nvenc"]["can_encode_av1"], true);
    EXPECT_EQ(g["nvenc"]["session_limit"], 8);
    EXPECT_TRUE(g["nvenc"]["reason"].is_null());
    EXPECT_TRUE(g["uuid"].is_null()) << "unknown text is null, not an empty string";
    EXPECT_TRUE(g["nvdec"].is_array());
    EXPECT_TRUE(g["nvdec"].empty());
    EXPECT_EQ(g["nvdec_status"], "NVDEC library libnvcuvid.so.1 not found");
}

TEST(DevicesJson, IntelGpu) {
    const json intel = gpu::to_json(inventory_with_gpus())["intel"];
    EXPECT_EQ(keys_of(intel), (std::set<std::string>{"status", "gpus"}));
    EXPECT_TRUE(intel["status"].is_null());
    ASSERT_EQ(intel["gpus"].size(), 1u);
    EXPECT_EQ(intel["gpus"][0], (json{{"index", 2},
                                      {"name", "Intel(R) Arc(TM) A770 Graphics"},
                                      {"implementation", "mfx-gen"},
                                      {"device_id", "56a0/0"},
                                      {"adapter", 0},
                                      {"render_node", "/dev/dri/renderD129"},
                                      {"av1_encode", true},
                                      {"av1_decode", true},
                                      {"reason", nullptr}}));
}

TEST(DevicesJson, Ffmpeg) {
    const json f = gpu::to_json(inventory_with_gpus())["ffmpeg"];
    EXPECT_EQ(f, (json{{"version", "7.1.1"},
                       {"libavcodec", "61.19.101"},
                       {"av1_nvenc", true},
                       {"av1_qsv", true},
                       {"nvdec", true}}));
}

TEST(DevicesJson, MachineWithoutGpus) {
    const json j = gpu::to_json(inventory_without_gpus());
    EXPECT_TRUE(j["nvidia"]["gpus"].is_array());
    EXPECT_TRUE(j["nvidia"]["gpus"].empty());
    EXPECT_EQ(j["nvidia"]["status"], "NVML library libnvidia-ml.so.1 not found (no NVIDIA driver installed)");
    EXPECT_TRUE(j["nvidia"]["driver_version"].is_null());
    EXPECT_TRUE(j["intel"]["gpus"].is_array());
    EXPECT_TRUE(j["intel"]["gpus"].empty());
    EXPECT_EQ(j["intel"]["status"], "no Intel GPU found through oneVPL");
    EXPECT_EQ(j["ffmpeg"]["av1_nvenc"], false);
    EXPECT_EQ(j["ffmpeg"]["nvdec"], true);
}

TEST(DevicesJson, UnknownCudaOrdinalAndAdapterAreNull) {
    gpu::DeviceInventory inv = inventory_with_gpus();
    inv.nvidia[0].cuda_ordinal = -1;
    inv.intel[0].adapter = -1;
    inv.intel[0].render_node.clear();
    const json j = gpu::to_json(inv);
    EXPECT_TRUE(j["nvidia"]["gpus"][0]["cuda_ordinal"].is_null());
    EXPECT_TRUE(j["intel"]["gpus"][0]["adapter"].is_null());
    EXPECT_TRUE(j["intel"]["gpus"][0]["render_node"].is_null());
}

}  // namespace
}  // namespace ladder::test
