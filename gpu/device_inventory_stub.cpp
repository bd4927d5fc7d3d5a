// TEMPORARY (not committed): stands in until the inventory lands.
#include "gpu/device_inventory.hpp"
#include "gpu/cpu_info.hpp"
#include <nlohmann/json.hpp>
extern "C" {
#include <libavcodec/avcodec.h>
}
namespace ladder::gpu {
DeviceInventory probe_devices() {
    DeviceInventory d;
    d.nvidia_status = "NVML library libnvidia-ml.so.1 not found (stub)";
    d.intel_status = "oneVPL library libvpl.so.2 not found (stub)";
    d.ffmpeg_version = av_version_info();
    return d;
}
nlohmann::json to_json(const DeviceInventory&) { return {}; }
}
