#include "cli/devices_command.hpp"

#include <exception>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/devices_table.hpp"
#include "gpu/device_inventory.hpp"

namespace ladder::cli {

CLI::App* add_devices_command(CLI::App& app, DevicesArgs& a) {
    CLI::App* cmd = app.add_subcommand(
        "devices",
        "List what this machine can encode with: the CPU and its AV1 encoders with their versions, NVIDIA GPUs "
        "(NVML, NVENC, NVDEC) and Intel GPUs (oneVPL), each with ladder's GPU index as --policy gpu:I takes it, "
        "and what this FFmpeg build supports. Missing drivers are reported, not errors: exit 0 whenever probing "
        "worked.");
    cmd->add_flag("--json", a.json, "Print the inventory as JSON (schema: docs/devices-json.md)");
    return cmd;
}

int run_devices(const DevicesArgs& a) {
    try {
        const gpu::DeviceInventory inventory = gpu::probe_devices();
        if (a.json)
            // Names come from drivers and /proc: replace invalid UTF-8 rather than throw.
            fmt::print("{}\n", gpu::to_json(inventory).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
        else
            fmt::print("{}", render_devices_table(inventory));
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "ladder: error: probing devices failed: {}\n", e.what());
        return 1;
    }
}

}  // namespace ladder::cli
