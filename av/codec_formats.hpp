#pragma once
// What an encoder accepts, read the way each FFmpeg version wants it:
// AVCodec.pix_fmts up to 7.0, avcodec_get_supported_config from 7.1 (where
// the field is deprecated).
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace ladder::av {

// Empty: the encoder does not say (it takes any format).
std::vector<AVPixelFormat> supported_pixel_formats(const AVCodec* codec);

// The format to feed the encoder for frames in `wanted`: `wanted` itself
// when it is listed, else the closest listed one (Quick Sync: NV12 / P010).
AVPixelFormat closest_pixel_format(const AVCodec* codec, AVPixelFormat wanted);

}  // namespace ladder::av
