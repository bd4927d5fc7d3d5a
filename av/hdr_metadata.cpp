#include "av/hdr_metadata.hpp"

#include <fmt/format.h>

#include <cstring>
#include <new>

#include "av/av_error.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/mem.h>
}

namespace ladder::av {

namespace {

std::optional<AVMasteringDisplayMetadata> usable(const AVMasteringDisplayMetadata* m) {
    if (!m || !m->has_primaries || !m->has_luminance) return std::nullopt;
    return *m;
}

const std::uint8_t* stream_side_data(const AVStream* st, AVPacketSideDataType type, std::size_t* size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 31, 100)
    const AVPacketSideData* sd = av_packet_side_data_get(st->codecpar->coded_side_data,
                                                         st->codecpar->nb_coded_side_data, type);
    if (!sd) return nullptr;
    *size = sd->size;
    return sd->data;
#else
    return av_stream_get_side_data(st, type, size);
#endif
}

template <class T>
void add(AVStream* st, AVPacketSideDataType type, const T& value) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 31, 100)
    AVPacketSideData* sd = av_packet_side_data_new(&st->codecpar->coded_side_data, &st->codecpar->nb_coded_side_data,
                                                   type, sizeof(T), 0);
    if (!sd) throw std::bad_alloc();
    std::memcpy(sd->data, &value, sizeof(T));
#else
    std::uint8_t* data = av_stream_new_side_data(st, type, sizeof(T));
    if (!data) throw std::bad_alloc();
    std::memcpy(data, &value, sizeof(T));
#endif
}

}  // namespace

HdrMetadata hdr_of_stream(const AVStream* st) {
    HdrMetadata h;
    std::size_t size = 0;
    if (const std::uint8_t* d = stream_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size);
        d && size >= sizeof(AVMasteringDisplayMetadata))
        h.mastering = usable(reinterpret_cast<const AVMasteringDisplayMetadata*>(d));
    if (const std::uint8_t* d = stream_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size);
        d && size >= sizeof(AVContentLightMetadata))
        h.content_light = *reinterpret_cast<const AVContentLightMetadata*>(d);
    return h;
}

HdrMetadata hdr_of_frame(const AVFrame* frame) {
    HdrMetadata h;
    if (const AVFrameSideData* sd = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA))
        h.mastering = usable(reinterpret_cast<const AVMasteringDisplayMetadata*>(sd->data));
    if (const AVFrameSideData* sd = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL))
        h.content_light = *reinterpret_cast<const AVContentLightMetadata*>(sd->data);
    return h;
}

std::string svtav1_hdr_params(const HdrMetadata& hdr) {
    std::string out;
    if (hdr.mastering) {
        const auto& m = *hdr.mastering;
        // FFmpeg orders the primaries R, G, B; SVT-AV1 reads G, B, R.
        auto xy = [](const AVRational* p) { return fmt::format("({:.4f},{:.4f})", av_q2d(p[0]), av_q2d(p[1])); };
        out += fmt::format(":mastering-display=G{}B{}R{}WP{}L({:.4f},{:.4f})", xy(m.display_primaries[1]),
                           xy(m.display_primaries[2]), xy(m.display_primaries[0]), xy(m.white_point),
                           av_q2d(m.max_luminance), av_q2d(m.min_luminance));
    }
    if (hdr.content_light)
        out += fmt::format(":content-light={},{}", hdr.content_light->MaxCLL, hdr.content_light->MaxFALL);
    return out;
}

void add_hdr_side_data(AVStream* st, const HdrMetadata& hdr) {
    if (hdr.mastering) add(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, *hdr.mastering);
    if (hdr.content_light) add(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, *hdr.content_light);
}

}  // namespace ladder::av
