#pragma once
// What this FFmpeg build offers for GPU work: its version, the AV1 hardware
// encoders (FFmpeg 6.0 and newer) and NVDEC with scale_cuda. A GPU that can
// encode AV1 is of no use to ladder when libavcodec lacks its encoder.
#include "gpu/device_inventory.hpp"

namespace ladder::gpu {

// Fills the ffmpeg_* and libavcodec_version fields.
void probe_ffmpeg(DeviceInventory& inventory);

}  // namespace ladder::gpu
