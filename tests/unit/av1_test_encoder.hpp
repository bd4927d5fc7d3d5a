#pragma once
// Real AV1 sequence headers for unit tests: a few gradient frames encoded by
// libsvtav1 or libaom-av1 through libavcodec, the way ladder's encoders are
// opened (global header on).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "av/av_error.hpp"
#include "av/handles.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixfmt.h>
}

namespace ladder::test {

struct Av1Sample {
    std::vector<std::uint8_t> first_packet;  // a key frame starting with the sequence header
    // AV_CODEC_FLAG_GLOBAL_HEADER: the context's extradata after the flush or,
    // when the wrapper leaves that empty (libaom in FFmpeg 5.1), the first
    // packet's AV_PKT_DATA_NEW_EXTRADATA side data.
    std::vector<std::uint8_t> extradata;
    std::string extradata_source;                 // "context" or "side data"
    std::vector<std::uint8_t> extradata_at_open;  // what was there right after avcodec_open2
    bool first_packet_is_key = false;
};

struct Av1EncodeOptions {
    int preset = -1;  // -1: libsvtav1 12, libaom-av1 cpu-used 8
    // The color description handed to the encoder (FFmpeg's defaults: unspecified).
    AVColorPrimaries primaries = AVCOL_PRI_UNSPECIFIED;
    AVColorTransferCharacteristic transfer = AVCOL_TRC_UNSPECIFIED;
    AVColorSpace matrix = AVCOL_SPC_UNSPECIFIED;
    AVColorRange range = AVCOL_RANGE_UNSPECIFIED;
};

// Opens `encoder` at width x height yuv420p 25 fps 200 kb/s with a global
// header, encodes 3 gradient frames and returns the first packet and the
// extradata. Throws av::AvError when the encoder is missing or fails.
inline Av1Sample encode_av1(const std::string& encoder, int width, int height, const Av1EncodeOptions& options) {
    namespace av = ladder::av;
    ::setenv("SVT_LOG", "1", 0);  // SVT-AV1: errors only, unless the caller asked for more
    const AVCodec* codec = avcodec_find_encoder_by_name(encoder.c_str());
    if (!codec) throw av::AvError(AVERROR_ENCODER_NOT_FOUND, "encoder " + encoder + " is not in this FFmpeg build");
    av::CodecContextPtr ctx = av::make_codec_context(codec);
    ctx->width = width;
    ctx->height = height;
    ctx->pix_fmt = AV_PIX_FMT_YUV420P;
    ctx->time_base = AVRational{1, 25};
    ctx->framerate = AVRational{25, 1};
    ctx->bit_rate = 200000;
    ctx->gop_size = 25;
    ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ctx->color_primaries = options.primaries;
    ctx->color_trc = options.transfer;
    ctx->colorspace = options.matrix;
    ctx->color_range = options.range;
    const int preset = options.preset;
    if (encoder == "libsvtav1") {
        av::check(av_opt_set_int(ctx->priv_data, "preset", preset >= 0 ? preset : 12, 0), "setting libsvtav1 preset");
    } else if (encoder == "libaom-av1") {
        av::check(av_opt_set_int(ctx->priv_data, "cpu-used", preset >= 0 ? preset : 8, 0), "setting libaom cpu-used");
        av::check(av_opt_set(ctx->priv_data, "usage", "realtime", 0), "setting libaom usage");
        ctx->thread_count = 1;
    }
    av::check(avcodec_open2(ctx.get(), codec, nullptr), "opening " + encoder);

    Av1Sample out;
    if (ctx->extradata && ctx->extradata_size > 0)
        out.extradata_at_open.assign(ctx->extradata, ctx->extradata + ctx->extradata_size);

    av::FramePtr frame = av::make_frame();
    frame->format = AV_PIX_FMT_YUV420P;
    frame->width = width;
    frame->height = height;
    av::check(av_frame_get_buffer(frame.get(), 0), "allocating a frame");

    av::PacketPtr packet = av::make_packet();
    bool have_first = false;
    std::vector<std::uint8_t> side_extradata;
    auto drain = [&] {
        for (;;) {
            int ret = avcodec_receive_packet(ctx.get(), packet.get());
            if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return;
            av::check(ret, "receiving a packet from " + encoder);
            if (!have_first) {
                out.first_packet.assign(packet->data, packet->data + packet->size);
                out.first_packet_is_key = (packet->flags & AV_PKT_FLAG_KEY) != 0;
                have_first = true;
                std::size_t size = 0;  // size_t since FFmpeg 5.0
                const std::uint8_t* side = av_packet_get_side_data(packet.get(), AV_PKT_DATA_NEW_EXTRADATA, &size);
                if (side && size > 0) side_extradata.assign(side, side + size);
            }
            av_packet_unref(packet.get());
        }
    };

    constexpr int kFrames = 3;
    for (int i = 0; i < kFrames; ++i) {
        av::check(av_frame_make_writable(frame.get()), "making a frame writable");
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                frame->data[0][y * frame->linesize[0] + x] = static_cast<std::uint8_t>((x + y + 8 * i) & 0xff);
        for (int p = 1; p < 3; ++p)
            for (int y = 0; y < height / 2; ++y) std::memset(frame->data[p] + y * frame->linesize[p], 128, width / 2);
        frame->pts = i;
        av::check(avcodec_send_frame(ctx.get(), frame.get()), "sending a frame to " + encoder);
        drain();
    }
    av::check(avcodec_send_frame(ctx.get(), nullptr), "flushing " + encoder);
    drain();
    if (!have_first) throw av::AvError(AVERROR_BUG, encoder + " produced no packet");
    // Some wrappers (libaom in FFmpeg 5.1) fill extradata only from the first packet.
    if (ctx->extradata && ctx->extradata_size > 0) {
        out.extradata.assign(ctx->extradata, ctx->extradata + ctx->extradata_size);
        out.extradata_source = "context";
    } else if (!side_extradata.empty()) {
        out.extradata = std::move(side_extradata);
        out.extradata_source = "side data";
    }
    return out;
}

inline Av1Sample encode_av1(const std::string& encoder, int width, int height, int preset = -1) {
    Av1EncodeOptions options;
    options.preset = preset;
    return encode_av1(encoder, width, height, options);
}

}  // namespace ladder::test
