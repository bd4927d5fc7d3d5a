#include "av/codec_lifecycle.hpp"

#include <cstring>
#include <vector>

namespace ladder::av {

namespace {
std::mutex& lifecycle_mutex() {
    static std::mutex mu;
    return mu;
}

struct Abandoned {
    std::mutex mu;
    std::vector<CodecContextPtr> contexts;
};

// Never destroyed: destroying it at exit would free the contexts, which is
// the teardown that can block.
Abandoned& abandoned() {
    static Abandoned& a = *std::make_unique<Abandoned>().release();
    return a;
}
}  // namespace

bool codec_needs_serialized_lifecycle(const AVCodec* codec) {
    return codec && codec->name && std::strcmp(codec->name, "libsvtav1") == 0;
}

std::unique_lock<std::mutex> lock_codec_lifecycle(const AVCodec* codec) {
    if (!codec_needs_serialized_lifecycle(codec)) return {};
    return std::unique_lock<std::mutex>(lifecycle_mutex());
}

bool free_or_abandon_stopped_encoder(CodecContextPtr ctx) {
    if (!ctx || !codec_needs_serialized_lifecycle(ctx->codec)) return false;  // ctx is freed here
    auto& a = abandoned();
    std::lock_guard lock(a.mu);
    a.contexts.push_back(std::move(ctx));
    return true;
}

int abandoned_encoder_count() {
    auto& a = abandoned();
    std::lock_guard lock(a.mu);
    return static_cast<int>(a.contexts.size());
}

}  // namespace ladder::av
