#include "av/codec_formats.hpp"

#include <algorithm>

namespace ladder::av {

std::vector<AVPixelFormat> supported_pixel_formats(const AVCodec* codec) {
    const AVPixelFormat* list = nullptr;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void* configs = nullptr;
    int count = 0;
    if (avcodec_get_supported_config(nullptr, codec, AV_CODEC_CONFIG_PIX_FORMAT, 0, &configs, &count) < 0 || !configs)
        return {};
    list = static_cast<const AVPixelFormat*>(configs);
    return {list, list + count};
#else
    list = codec->pix_fmts;
    std::vector<AVPixelFormat> out;
    for (; list && *list != AV_PIX_FMT_NONE; ++list) out.push_back(*list);
    return out;
#endif
}

AVPixelFormat closest_pixel_format(const AVCodec* codec, AVPixelFormat wanted) {
    std::vector<AVPixelFormat> formats = supported_pixel_formats(codec);
    if (formats.empty() || std::find(formats.begin(), formats.end(), wanted) != formats.end()) return wanted;
    formats.push_back(AV_PIX_FMT_NONE);  // the list form avcodec_find_best_pix_fmt_of_list takes
    return avcodec_find_best_pix_fmt_of_list(formats.data(), wanted, 0, nullptr);
}

}  // namespace ladder::av
