#pragma once
// The few API differences between FFmpeg 5.1 (lavc 59 / lavu 57) and 7.x
// (lavc 61 / lavu 59) that ladder touches, in one place.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavformat/avio.h>
#include <libavformat/version.h>
#include <libavutil/version.h>
}

#include <cstdint>

namespace ladder::av {

inline bool frame_is_key(const AVFrame* f) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    return (f->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return f->key_frame != 0;
#endif
}

inline bool frame_is_interlaced(const AVFrame* f) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    return (f->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    return f->interlaced_frame != 0;
#endif
}

// The buffer of an AVIO write callback became const in libavformat 61.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using AvioWriteBuffer = const std::uint8_t*;
#else
using AvioWriteBuffer = std::uint8_t*;
#endif

}  // namespace ladder::av
