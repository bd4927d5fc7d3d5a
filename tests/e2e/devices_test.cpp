// End-to-end: `ladder devices` and `ladder devices --json` with the real
// binary on this machine. Both exit 0 with or without GPUs; the JSON parses
// and follows docs/devices-json.md, and the table says the same things.
// Where no NVIDIA GPU is listed (CI has none) the status must say why.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "media_tools.hpp"

namespace ladder::test {
namespace {

using nlohmann::json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json devices_json() {
    const ProcessResult r = run_ladder({"devices", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "") << "probing prints nothing on stderr";
    return json::parse(r.out);  // throws (test fails) when it is not JSON
}

TEST(Devices, JsonDescribesThisMachine) {
    const json j = devices_json();
    EXPECT_EQ(j.at("schema_version"), 1);

    const json& cpu = j.at("cpu");
    EXPECT_GE(cpu.at("cores").get<int>(), 1);
    EXPECT_TRUE(cpu.at("model").is_string());
    EXPECT_GT(cpu.at("available_memory_bytes").get<std::uint64_t>(), 0u);
    bool svt = false;
    for (const json& e : cpu.at("av1_encoders")) {
        if (e.at("name") == "libsvtav1") {
            svt = true;
            const std::string version = e.at("version");
            EXPECT_FALSE(version.empty());
            EXPECT_NE(version, "unknown");
            EXPECT_TRUE(std::regex_search(version, std::regex("[0-9]+\\.[0-9]+"))) << version;
        }
    }
    EXPECT_TRUE(svt) << cpu.dump();

    const json& ffmpeg = j.at("ffmpeg");
    EXPECT_FALSE(ffmpeg.at("version").get<std::string>().empty());
    EXPECT_TRUE(std::regex_match(ffmpeg.at("libavcodec").get<std::string>(), std::regex("[0-9]+\\.[0-9]+\\.[0-9]+")));
    for (const char* flag : {"av1_nvenc", "av1_qsv", "nvdec"}) EXPECT_TRUE(ffmpeg.at(flag).is_boolean()) << flag;
}

TEST(Devices, NvidiaListOrWhyNot) {
    const json nvidia = devices_json().at("nvidia");
    const json& gpus = nvidia.at("gpus");
    ASSERT_TRUE(gpus.is_array());
    if (gpus.empty()) {
        ASSERT_TRUE(nvidia.at("status").is_string()) << nvidia.dump();
        const std::string status = nvidia.at("status");
        EXPECT_TRUE(std::regex_search(status, std::regex("libnvidia-ml|driver|NVML"))) << status;
        return;
    }
    // A machine with NVIDIA GPUs: indices start at 0 in NVML order, and a
    // GPU that cannot encode AV1 says why.
    EXPECT_TRUE(nvidia.at("status").is_null());
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        EXPECT_EQ(gpus[i].at("index"), static_cast<int>(i));
        EXPECT_FALSE(gpus[i].at("name").get<std::string>().empty());
        const json& nvenc = gpus[i].at("nvenc");
        if (!nvenc.at("can_encode_av1").get<bool>()) {
            EXPECT_TRUE(nvenc.at("reason").is_string()) << nvenc.dump();
        }
    }
}

TEST(Devices, IntelListOrWhyNot) {
    const json j = devices_json();
    const json& intel = j.at("intel");
    ASSERT_TRUE(intel.at("gpus").is_array());
    if (intel.at("gpus").empty()) {
        EXPECT_TRUE(intel.at("status").is_string()) << intel.dump();
    }
    // Intel indices follow NVIDIA's.
    int next = static_cast<int>(j.at("nvidia").at("gpus").size());
    for (const json& g : intel.at("gpus")) EXPECT_EQ(g.at("index"), next++);
}

TEST(Devices, TableSaysTheSame) {
    const json j = devices_json();
    const ProcessResult r = run_ladder({"devices"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out.rfind("CPU  ", 0), 0u) << r.out;
    EXPECT_TRUE(contains(r.out, "libsvtav1 ")) << r.out;
    if (j["nvidia"]["gpus"].empty()) {
        EXPECT_TRUE(contains(r.out, "No NVIDIA GPU: " + j["nvidia"]["status"].get<std::string>() + "\n")) << r.out;
    } else {
        EXPECT_TRUE(contains(r.out, "GPU 0  " + j["nvidia"]["gpus"][0]["name"].get<std::string>())) << r.out;
    }
    if (j["intel"]["gpus"].empty()) {
        EXPECT_TRUE(contains(r.out, "No Intel GPU: " + j["intel"]["status"].get<std::string>() + "\n")) << r.out;
    }
    const auto yes_no = [](const json& b) { return b.get<bool>() ? "yes" : "no"; };
    const std::string ffmpeg_line = "FFmpeg " + j["ffmpeg"]["version"].get<std::string>() + ": av1_nvenc " +
                                    yes_no(j["ffmpeg"]["av1_nvenc"]) + " (for --nvenc-client ffmpeg), av1_qsv " + yes_no(j["ffmpeg"]["av1_qsv"]) +
                                    ", NVDEC+scale_cuda " + yes_no(j["ffmpeg"]["nvdec"]) + "\n";
    EXPECT_TRUE(contains(r.out, ffmpeg_line)) << r.out;
}

TEST(Devices, RejectsUnknownOptions) {
    const ProcessResult r = run_ladder({"devices", "--bogus"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

}  // namespace
}  // namespace ladder::test
