#pragma once
// The few API differences between FFmpeg 5.1 (lavc 59 / lavu 57) and 7.x
// (lavc 61 / lavu 59) that ladder touches, in one place.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavformat/version.h>
#include <libavutil/version.h>
}

#include <cstddef>
#include <cstdint>

namespace ladder::av {

// AV_TIME_BASE_Q is a C compound literal, which C++ accepts only as an
// extension (clang -Wpedantic warns).
inline constexpr AVRational kTimeBaseQ{1, AV_TIME_BASE};

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

// The stream's display matrix (9 x int32, AV_PKT_DATA_DISPLAYMATRIX), or
// null: stream side data moved into the codec parameters in FFmpeg 6.1.
inline const std::int32_t* stream_display_matrix(const AVStream* st) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 31, 100)
    const AVPacketSideData* sd = av_packet_side_data_get(st->codecpar->coded_side_data,
                                                         st->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX);
    if (!sd || sd->size < 9 * sizeof(std::int32_t)) return nullptr;
    return reinterpret_cast<const std::int32_t*>(sd->data);
#else
    std::size_t size = 0;
    const std::uint8_t* data = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!data || size < 9 * sizeof(std::int32_t)) return nullptr;
    return reinterpret_cast<const std::int32_t*>(data);
#endif
}

// The buffer of an AVIO write callback became const in libavformat 61.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using AvioWriteBuffer = const std::uint8_t*;
#else
using AvioWriteBuffer = std::uint8_t*;
#endif

}  // namespace ladder::av
