#include "cli/devices_table.hpp"

#include <fmt/format.h>

namespace ladder::cli {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
}

std::string cpu_line(const gpu::CpuDevice& cpu) {
    std::vector<std::string> encoders;
    for (const auto& e : cpu.av1_encoders) encoders.push_back(fmt::format("{} {}", e.name, e.version));
    return fmt::format("CPU  {}: {} core{}, {:.1f} GiB available; AV1 encoders: {}\n", cpu.model, cpu.cores,
                       cpu.cores == 1 ? "" : "s", static_cast<double>(cpu.available_memory_bytes) / kGiB,
                       encoders.empty() ? "none" : join(encoders));
}

std::string nvenc_line(const gpu::NvencProbe& n) {
    if (!n.can_encode_av1()) return fmt::format("  NVENC: no — {}\n", n.reason.empty() ? "unknown" : n.reason);
    std::string line = "  NVENC: yes — AV1";
    if (n.engines > 0) line += fmt::format(", {} engine{}", n.engines, n.engines == 1 ? "" : "s");
    if (n.session_limit) line += fmt::format(", up to {} sessions", *n.session_limit);
    return line + "\n";
}

std::string nvdec_line(const gpu::NvidiaGpu& g) {
    std::vector<std::string> rows;
    for (const auto& d : g.nvdec) {
        if (d.supported)
            rows.push_back(fmt::format("{} {}-bit up to {}x{} ({} engine{})", d.codec, d.bit_depth, d.max_width,
                                       d.max_height, d.engines, d.engines == 1 ? "" : "s"));
        else
            rows.push_back(fmt::format("{} {}-bit no", d.codec, d.bit_depth));
    }
    std::string line = "  NVDEC: " + (rows.empty() ? std::string("unknown") : join(rows));
    if (!g.nvdec_status.empty()) line += (rows.empty() ? " — " : " (") + g.nvdec_status + (rows.empty() ? "" : ")");
    return line + "\n";
}

std::string nvidia_block(const gpu::NvidiaGpu& g) {
    std::vector<std::string> facts;
    if (!g.pci_bus_id.empty()) facts.push_back("PCI " + g.pci_bus_id);
    if (g.memory_total_bytes) facts.push_back(fmt::format("{:.0f} GiB", static_cast<double>(g.memory_total_bytes) / kGiB));
    if (!g.uuid.empty()) facts.push_back("UUID " + g.uuid);
    std::string out = fmt::format("GPU {}  {}  ({})\n", g.index, g.name, join(facts));
    out += g.cuda_ordinal >= 0 ? fmt::format("  CUDA device {}\n", g.cuda_ordinal) : std::string("  CUDA device unknown\n");
    out += nvenc_line(g.nvenc);
    out += nvdec_line(g);
    return out;
}

std::string intel_block(const gpu::IntelGpu& g) {
    std::vector<std::string> facts;
    if (!g.device_id.empty()) facts.push_back("device " + g.device_id);
    if (!g.render_node.empty()) facts.push_back(g.render_node);
    if (!g.implementation.empty() && g.implementation != g.name) facts.push_back("oneVPL " + g.implementation);
    std::string out = fmt::format("GPU {}  {}  ({})\n", g.index, g.name, join(facts));
    out += g.av1_encode ? std::string("  QSV AV1 encode: yes\n") : fmt::format("  QSV AV1 encode: no — {}\n", g.reason);
    out += fmt::format("  QSV AV1 decode: {}\n", yes_no(g.av1_decode));
    return out;
}

}  // namespace

std::string render_devices_table(const gpu::DeviceInventory& inv) {
    std::string out = cpu_line(inv.cpu);
    if (inv.nvidia.empty()) {
        out += fmt::format("No NVIDIA GPU: {}\n", inv.nvidia_status.empty() ? "none found" : inv.nvidia_status);
    } else {
        if (!inv.nvidia_driver_version.empty()) out += fmt::format("NVIDIA driver {}\n", inv.nvidia_driver_version);
        for (const auto& g : inv.nvidia) out += nvidia_block(g);
    }
    if (inv.intel.empty())
        out += fmt::format("No Intel GPU: {}\n", inv.intel_status.empty() ? "none found" : inv.intel_status);
    else
        for (const auto& g : inv.intel) out += intel_block(g);
    // ladder drives NVENC itself by default: FFmpeg's encoder matters only
    // with --nvenc-client ffmpeg.
    out += fmt::format("FFmpeg {}: av1_nvenc {} (for --nvenc-client ffmpeg), av1_qsv {}, NVDEC+scale_cuda {}\n",
                       inv.ffmpeg_version,
                       yes_no(inv.ffmpeg_av1_nvenc), yes_no(inv.ffmpeg_av1_qsv), yes_no(inv.ffmpeg_nvdec));
    return out;
}

}  // namespace ladder::cli
