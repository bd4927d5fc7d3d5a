// to_json(DeviceInventory): the schema of `ladder devices --json`, documented
// in docs/devices-json.md. Change both together and bump kSchemaVersion when
// a field changes meaning or goes away.
#include <nlohmann/json.hpp>

#include "gpu/device_inventory.hpp"

namespace ladder::gpu {

namespace {

constexpr int kSchemaVersion = 1;

// Text that may be absent ("no reason", "not known") is null, never "".
nlohmann::json text_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

nlohmann::json index_or_null(int i) { return i < 0 ? nlohmann::json(nullptr) : nlohmann::json(i); }

nlohmann::json cpu_json(const CpuDevice& cpu) {
    nlohmann::json encoders = nlohmann::json::array();
    for (const auto& e : cpu.av1_encoders) encoders.push_back({{"name", e.name}, {"version", e.version}});
    return {{"cores", cpu.cores},
            {"model", cpu.model},
            {"available_memory_bytes", cpu.available_memory_bytes},
            {"av1_encoders", std::move(encoders)}};
}

nlohmann::json nvenc_json(const NvencProbe& n) {
    return {{"can_encode_av1", n.can_encode_av1()},
            {"session_opened", n.session_opened},
            {"av1_encode", n.av1_encode},
            {"session_limit", n.session_limit ? nlohmann::json(*n.session_limit) : nlohmann::json(nullptr)},
            {"engines", n.engines > 0 ? nlohmann::json(n.engines) : nlohmann::json(nullptr)},
            {"reason", text_or_null(n.reason)}};
}

nlohmann::json nvidia_gpu_json(const NvidiaGpu& g) {
    nlohmann::json nvdec = nlohmann::json::array();
    for (const auto& d : g.nvdec)
        nvdec.push_back({{"codec", d.codec},
                         {"bit_depth", d.bit_depth},
                         {"supported", d.supported},
                         {"max_width", d.max_width},
                         {"max_height", d.max_height},
                         {"engines", d.engines}});
    return {{"index", g.index},
            {"nvml_index", g.nvml_index},
            {"cuda_ordinal", index_or_null(g.cuda_ordinal)},
            {"name", g.name},
            {"uuid", text_or_null(g.uuid)},
            {"pci_bus_id", text_or_null(g.pci_bus_id)},
            {"memory_total_bytes", g.memory_total_bytes},
            {"nvenc", nvenc_json(g.nvenc)},
            {"nvdec", std::move(nvdec)},
            {"nvdec_status", text_or_null(g.nvdec_status)}};
}

nlohmann::json intel_gpu_json(const IntelGpu& g) {
    return {{"index", g.index},
            {"name", g.name},
            {"implementation", text_or_null(g.implementation)},
            {"device_id", text_or_null(g.device_id)},
            {"adapter", index_or_null(g.adapter)},
            {"render_node", text_or_null(g.render_node)},
            {"av1_encode", g.av1_encode},
            {"av1_decode", g.av1_decode},
            {"reason", text_or_null(g.reason)}};
}

}  // namespace

nlohmann::json to_json(const DeviceInventory& inv) {
    nlohmann::json nvidia = nlohmann::json::array();
    for (const auto& g : inv.nvidia) nvidia.push_back(nvidia_gpu_json(g));
    nlohmann::json intel = nlohmann::json::array();
    for (const auto& g : inv.intel) intel.push_back(intel_gpu_json(g));
    return {{"schema_version", kSchemaVersion},
            {"cpu", cpu_json(inv.cpu)},
            {"nvidia",
             {{"status", text_or_null(inv.nvidia_status)},
              {"driver_version", text_or_null(inv.nvidia_driver_version)},
              {"gpus", std::move(nvidia)}}},
            {"intel", {{"status", text_or_null(inv.intel_status)}, {"gpus", std::move(intel)}}},
            {"ffmpeg",
             {{"version", inv.ffmpeg_version},
              {"libavcodec", inv.libavcodec_version},
              {"av1_nvenc", inv.ffmpeg_av1_nvenc},
              {"av1_qsv", inv.ffmpeg_av1_qsv},
              {"nvdec", inv.ffmpeg_nvdec}}}};
}

}  // namespace ladder::gpu
