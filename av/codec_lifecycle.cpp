#include "av/codec_lifecycle.hpp"

#include <cstring>

namespace ladder::av {

namespace {
std::mutex& lifecycle_mutex() {
    static std::mutex mu;
    return mu;
}
}  // namespace

bool codec_needs_serialized_lifecycle(const AVCodec* codec) {
    return codec && codec->name && std::strcmp(codec->name, "libsvtav1") == 0;
}

std::unique_lock<std::mutex> lock_codec_lifecycle(const AVCodec* codec) {
    if (!codec_needs_serialized_lifecycle(codec)) return {};
    return std::unique_lock<std::mutex>(lifecycle_mutex());
}

}  // namespace ladder::av
