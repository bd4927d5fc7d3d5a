#include "engine/check/chunk_decode.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace ladder::engine {

namespace {

// libdav1d or libaom's decoder: FFmpeg's own "av1" decodes only through a
// hardware accelerator.
const AVCodec* software_av1_decoder(Av1Decoder decoder) {
    const bool strict = decoder == Av1Decoder::strict;
    for (const char* name : {strict ? "libaom-av1" : "libdav1d", strict ? "libdav1d" : "libaom-av1"})
        if (const AVCodec* codec = avcodec_find_decoder_by_name(name)) return codec;
    return nullptr;
}

}  // namespace

void decode_chunk(const EncodedChunk& chunk, int threads, const std::function<void(av::FramePtr)>& take,
                  Av1Decoder decoder) {
    const AVCodec* codec = software_av1_decoder(decoder);
    if (!codec)
        throw RunError("this FFmpeg build has no AV1 software decoder (libdav1d or libaom) to check the chunks with: "
                       "install FFmpeg with libdav1d");
    av::CodecContextPtr ctx = av::make_codec_context(codec);
    av::check(avcodec_parameters_to_context(ctx.get(), chunk.codecpar.get()), "AV1 decoder parameters");
    ctx->thread_count = std::max(1, threads);
    av::check(avcodec_open2(ctx.get(), codec, nullptr), "opening the AV1 decoder");
    const auto failed = [&](int ret, const char* doing) {
        throw UndecodableChunk(fmt::format("does not decode: {} {}: {}", codec->name, doing, av::error_string(ret)));
    };
    const auto drain = [&] {
        for (;;) {
            av::FramePtr f = av::make_frame();
            const int ret = avcodec_receive_frame(ctx.get(), f.get());
            if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return;
            if (ret < 0) failed(ret, "gave no frame");
            take(std::move(f));
        }
    };
    for (const auto& p : chunk.packets) {
        if (const int ret = avcodec_send_packet(ctx.get(), p.get()); ret < 0) failed(ret, "refused a packet");
        drain();
    }
    if (const int ret = avcodec_send_packet(ctx.get(), nullptr); ret < 0) failed(ret, "could not end");
    drain();
}

std::optional<std::string> why_undecodable(const EncodedChunk& chunk, std::size_t frames, int threads,
                                           Av1Decoder decoder) {
    std::size_t decoded = 0;
    try {
        decode_chunk(chunk, threads, [&](av::FramePtr) { ++decoded; }, decoder);
    } catch (const UndecodableChunk& e) {
        return e.what();
    }
    if (decoded != frames) return fmt::format("decodes to {} frames, not {}", decoded, frames);
    return std::nullopt;
}

}  // namespace ladder::engine
