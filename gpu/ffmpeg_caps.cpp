#include "gpu/ffmpeg_caps.hpp"

#include <fmt/format.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavutil/avutil.h>
#include <libavutil/hwcontext.h>
}

namespace ladder::gpu {

void probe_ffmpeg(DeviceInventory& inv) {
    const char* release = av_version_info();
    inv.ffmpeg_version = release && *release ? release : "unknown";
    const unsigned v = avcodec_version();
    inv.libavcodec_version = fmt::format("{}.{}.{}", AV_VERSION_MAJOR(v), AV_VERSION_MINOR(v), AV_VERSION_MICRO(v));
    inv.ffmpeg_av1_nvenc = avcodec_find_encoder_by_name("av1_nvenc") != nullptr;
    inv.ffmpeg_av1_qsv = avcodec_find_encoder_by_name("av1_qsv") != nullptr;
    // Decoding on NVDEC and scaling there needs both the CUDA hw device type
    // and the scale_cuda filter (built only with CUDA compiler support).
    inv.ffmpeg_nvdec = av_hwdevice_find_type_by_name("cuda") != AV_HWDEVICE_TYPE_NONE &&
                       avfilter_get_by_name("scale_cuda") != nullptr;
}

}  // namespace ladder::gpu
