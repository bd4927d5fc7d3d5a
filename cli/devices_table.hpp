#pragma once
// The readable form of a DeviceInventory that `ladder devices` prints: a CPU
// line, one block per GPU (ladder's GPU index first, as --policy gpu:I takes
// it), a line for each vendor without GPUs saying why, and FFmpeg's line.
#include <string>

#include "gpu/device_inventory.hpp"

namespace ladder::cli {

std::string render_devices_table(const gpu::DeviceInventory& inventory);

}  // namespace ladder::cli
