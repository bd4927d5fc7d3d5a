#include "engine/libavcodec_encoder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "av/av_error.hpp"
#include "av/codec_formats.hpp"
#include "av/codec_lifecycle.hpp"
#include "av/extradata.hpp"
#include "av/hw_device.hpp"
#include "engine/errors.hpp"
#include "engine/thread_name.hpp"
#include "mux/av1_sequence_header.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

LibavcodecEncoder::LibavcodecEncoder(gpu::EncoderSlot slot, EncoderSettings settings)
    : slot_(std::move(slot)), settings_(settings) {
    codec_ = avcodec_find_encoder_by_name(slot_.encoder.c_str());
    if (!codec_)
        throw RunError(fmt::format("encoder {} is not in this FFmpeg build (slot {})", slot_.encoder, slot_.label));
}

EncodedChunk LibavcodecEncoder::encode(const RawChunk& chunk, std::stop_token stop) {
    std::size_t next = 0;
    ChunkFrames frames;
    frames.rung = chunk.rung;
    frames.index = chunk.index;
    frames.first_frame = chunk.first_frame;
    frames.count = static_cast<int>(chunk.frames.size());
    frames.next = [&] { return av::ref_frame(chunk.frames.at(next++).get()); };
    return encode_frames(frames, stop);
}

EncodedChunk LibavcodecEncoder::encode_frames(const ChunkFrames& frames, std::stop_token stop) {
    name_this_thread(slot_.label);
    try {
        if (frames.count < 1) throw RunError(fmt::format("chunk {} has no frames", frames.index));
        av::FramePtr first = frames.next();
        av::CodecContextPtr ctx = open(frames.count, first.get());
        try {
            return encode_with(ctx.get(), std::move(first), frames, stop);
        } catch (const Cancelled&) {
            // A stop never waits on a teardown that may not return.
            av::free_or_abandon_stopped_encoder(std::move(ctx));
            throw;
        }
    } catch (const av::AvError& e) {
        throw RunError(fmt::format("encoding chunk {} on {} ({}): {}", frames.index, slot_.label, slot_.encoder,
                                   e.what()));
    }
}

void LibavcodecEncoder::probe() {
    try {
        open(1, nullptr);
    } catch (const av::AvError& e) {
        throw RunError(fmt::format("opening {} on {}: {}", slot_.encoder, slot_.label, e.what()));
    }
}

// first: the chunk's first frame, whose layout (and GPU frames context,
// for frames in GPU memory) the encoder is opened for.
av::CodecContextPtr LibavcodecEncoder::open(int frames, const AVFrame* first) const {
    const EncoderSettings& s = settings_;
    av::CodecContextPtr ctx = av::make_codec_context(codec_);
    ctx->width = s.width;
    ctx->height = s.height;
    ctx->pix_fmt = input_format(first);
    if (first && first->hw_frames_ctx) {
        ctx->hw_frames_ctx = av_buffer_ref(first->hw_frames_ctx);
        if (!ctx->hw_frames_ctx) throw std::bad_alloc();
    }
    attach_device(ctx.get());
    ctx->framerate = s.frame_rate;
    ctx->time_base = av_inv_q(s.frame_rate);
    ctx->sample_aspect_ratio = AVRational{1, 1};
    ctx->color_primaries = s.color_primaries;
    ctx->color_trc = s.color_trc;
    ctx->colorspace = s.colorspace;
    ctx->color_range = s.color_range;
    ctx->bit_rate = static_cast<int64_t>(s.bitrate_kbps) * 1000;
    ctx->rc_buffer_size = (s.bufsize_kbps ? s.bufsize_kbps : 2 * s.bitrate_kbps) * 1000;
    // One key frame per chunk: the chunk is the GOP (closed). Never 1:
    // FFmpeg 6.1+ turns gop_size 1 into SVT-AV1's force_key_frames, which
    // SVT-AV1 2.x refuses in VBR mode ("bad parameter"), so a 1-frame
    // chunk (a 1-frame source, a last chunk of 1 frame) could not be
    // encoded on Debian 13. Its only frame is a key frame either way.
    ctx->gop_size = std::max(2, frames);
    ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER | AV_CODEC_FLAG_CLOSED_GOP;
    ctx->thread_count = slot_.threads;

    const int preset = s.preset >= 0 ? s.preset : default_preset(slot_.encoder);
    AVDictionary* opts = nullptr;
    if (slot_.encoder == "libsvtav1") {
        // SVT-AV1 1.4 supports a max rate only in CRF mode: plain VBR here.
        av_dict_set_int(&opts, "preset", std::clamp(preset, 0, 13), 0);
        av_dict_set(&opts, "svtav1-params", fmt::format("lp={}", slot_.threads).c_str(), 0);
    } else if (slot_.encoder == "libaom-av1") {
        ctx->rc_max_rate = static_cast<int64_t>(s.maxrate_kbps ? s.maxrate_kbps : s.bitrate_kbps * 3 / 2) * 1000;
        av_dict_set_int(&opts, "cpu-used", std::clamp(preset, 0, 8), 0);
        av_dict_set(&opts, "row-mt", "1", 0);
    } else if (slot_.encoder == "av1_nvenc") {
        ctx->rc_max_rate = static_cast<int64_t>(s.maxrate_kbps ? s.maxrate_kbps : s.bitrate_kbps * 3 / 2) * 1000;
        av_dict_set(&opts, "preset", fmt::format("p{}", std::clamp(preset, 1, 7)).c_str(), 0);
        av_dict_set(&opts, "tune", "hq", 0);
        av_dict_set(&opts, "rc", "vbr", 0);
        // The chunk is the GOP; no B-frames keeps decode order = output order.
        av_dict_set(&opts, "bf", "0", 0);
    } else if (slot_.encoder == "av1_qsv") {
        ctx->rc_max_rate = static_cast<int64_t>(s.maxrate_kbps ? s.maxrate_kbps : s.bitrate_kbps * 3 / 2) * 1000;
        av_dict_set_int(&opts, "preset", std::clamp(preset, 1, 7), 0);
        av_dict_set(&opts, "bf", "0", 0);
    }
    int ret = 0;
    {
        const auto lock = av::lock_codec_lifecycle(codec_);
        ret = avcodec_open2(ctx.get(), codec_, &opts);
    }
    av_dict_free(&opts);
    av::check(ret, fmt::format("opening {} {}x{} at {} kb/s", slot_.encoder, s.width, s.height, s.bitrate_kbps));
    return ctx;
}

// The pixel format the encoder takes for these frames: theirs when it
// can (frames in GPU memory are taken as they are), else the closest one
// it lists (Quick Sync wants NV12/P010, not planar YUV).
AVPixelFormat LibavcodecEncoder::input_format(const AVFrame* first) const {
    if (first && first->hw_frames_ctx) return static_cast<AVPixelFormat>(first->format);
    return av::closest_pixel_format(codec_, settings_.pix_fmt);
}

// GPU encoders run on the slot's device: one shared device context per
// GPU, so a chunk does not pay for a new CUDA context or VA display.
void LibavcodecEncoder::attach_device(AVCodecContext* ctx) const {
    if (slot_.kind == gpu::DeviceKind::cpu || ctx->hw_frames_ctx) return;
    const AVHWDeviceType type = slot_.kind == gpu::DeviceKind::nvidia ? AV_HWDEVICE_TYPE_CUDA : AV_HWDEVICE_TYPE_QSV;
    ctx->hw_device_ctx = av::shared_hw_device(type, slot_.device).release();
}

void LibavcodecEncoder::convert(const AVFrame* src, const AVCodecContext* ctx, AVFrame* dst) const {
    if (!sws_)
        sws_.reset(sws_getContext(src->width, src->height, static_cast<AVPixelFormat>(src->format), ctx->width,
                                  ctx->height, ctx->pix_fmt, SWS_POINT, nullptr, nullptr, nullptr));
    if (!sws_)
        throw RunError(
            fmt::format("{}: cannot convert frames to {}", slot_.label, av_get_pix_fmt_name(ctx->pix_fmt)));
    dst->width = ctx->width;
    dst->height = ctx->height;
    dst->format = ctx->pix_fmt;
    av::check(av_frame_get_buffer(dst, 0), "allocating a converted frame");
    av::check(av_frame_copy_props(dst, src), "copying frame properties");
    av::check(sws_scale_frame(sws_.get(), dst, src), "converting a frame for the encoder");
}

// Checks stop before every packet: after the flush, receiving the packets
// is where SVT-AV1 does most of a chunk's work (it buffers every frame
// sent), so a stop waits for one frame, not for the whole chunk.
void LibavcodecEncoder::drain(AVCodecContext* ctx, const ChunkFrames& frames, EncodedChunk& out,
                              std::stop_token stop) const {
    for (;;) {
        if (stop.stop_requested()) throw Cancelled();
        av::PacketPtr pkt = av::make_packet();
        int ret = avcodec_receive_packet(ctx, pkt.get());
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return;
        av::check(ret, "receiving a packet");
        // Frames went in with their frame number in the rung as pts. AV1
        // has no visible reordering: one temporal unit per shown frame,
        // decode order = presentation order.
        if (pkt->pts < frames.first_frame || pkt->pts >= frames.first_frame + frames.count)
            throw RunError(fmt::format("{} returned a packet for frame {} outside chunk {} (frames {} to {})",
                                       slot_.encoder, pkt->pts, frames.index, frames.first_frame,
                                       frames.first_frame + frames.count - 1));
        pkt->dts = pkt->pts;
        pkt->duration = 1;
        out.bytes += static_cast<std::size_t>(pkt->size);
        if (frames.on_packet) frames.on_packet(*pkt);
        out.packets.push_back(std::move(pkt));
    }
}

EncodedChunk LibavcodecEncoder::encode_with(AVCodecContext* ctx, av::FramePtr first, const ChunkFrames& frames,
                                            std::stop_token stop) const {
    EncodedChunk out;
    out.rung = frames.rung;
    out.index = frames.index;
    out.first_frame = frames.first_frame;
    out.frame_count = frames.count;
    out.slot_label = slot_.label;
    out.encoder = slot_.encoder;

    av::FramePtr converted = av::make_frame();
    for (int i = 0; i < frames.count; ++i) {
        if (stop.stop_requested()) throw Cancelled();
        av::FramePtr src = i == 0 ? std::move(first) : frames.next();
        AVFrame* frame = src.get();
        if (src->format != ctx->pix_fmt && !src->hw_frames_ctx) {
            convert(src.get(), ctx, converted.get());
            src.reset();
            frame = converted.get();
        }
        // The frame number in the rung: an encoder process's parent and the
        // packets both speak in it.
        frame->pts = frames.first_frame + i;
        // A fresh encoder starts with a key frame on its own; forcing one on
        // frame 0 makes libaom emit a second key frame right after it.
        frame->pict_type = AV_PICTURE_TYPE_NONE;
        av::check(avcodec_send_frame(ctx, frame), "sending a frame");
        src.reset();  // the encoder holds what it still needs
        av_frame_unref(converted.get());
        drain(ctx, frames, out, stop);
    }
    av::check(avcodec_send_frame(ctx, nullptr), "flushing");
    drain(ctx, frames, out, stop);

    if (static_cast<int>(out.packets.size()) != frames.count)
        throw RunError(fmt::format("{} returned {} packets for {} frames in chunk {}", slot_.encoder,
                                   out.packets.size(), frames.count, frames.index));
    const AVPacket* first_packet = out.packets.front().get();
    if (!(first_packet->flags & AV_PKT_FLAG_KEY) ||
        !mux::parse_sequence_header({first_packet->data, static_cast<std::size_t>(first_packet->size)}))
        throw RunError(fmt::format("{} did not start chunk {} with a key frame and sequence header", slot_.encoder,
                                   frames.index));
    auto par = av::make_codec_parameters();
    av::check(avcodec_parameters_from_context(par.get(), ctx), "reading encoder parameters");
    // av1C must carry the sequence header the key frames signal, not
    // whatever the encoder offered at open time.
    av::set_extradata(par.get(), av::extract_extradata(first_packet, par.get()));
    if (par->extradata_size == 0)
        throw RunError(
            fmt::format("{}: no sequence header could be extracted from chunk {}", slot_.encoder, frames.index));
    out.codecpar = std::move(par);
    return out;
}

}  // namespace ladder::engine
