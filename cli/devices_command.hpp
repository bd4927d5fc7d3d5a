#pragma once
// `ladder devices [--json]`: what the machine offers for encoding (CPU and
// its AV1 encoders, NVIDIA and Intel GPUs, FFmpeg's hardware support). Exit
// 0 whenever probing worked, also on a machine without GPUs.
#include <CLI/CLI.hpp>

namespace ladder::cli {

struct DevicesArgs {
    bool json = false;
};

CLI::App* add_devices_command(CLI::App& app, DevicesArgs& args);
int run_devices(const DevicesArgs& args);

}  // namespace ladder::cli
