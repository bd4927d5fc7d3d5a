#include "engine/encode/backend/libavcodec_encoder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "av/av_error.hpp"
#include "av/bitexact_scaling.hpp"
#include "av/codec_formats.hpp"
#include "av/codec_lifecycle.hpp"
#include "av/extradata.hpp"
#include "av/hw_device.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/thread_name.hpp"
#include "mux/av1_metadata_obu.hpp"
#include "mux/av1_sequence_header.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

LibavcodecEncoder::LibavcodecEncoder(gpu::EncoderSlot slot, EncoderSettings settings)
    : slot_(std::move(slot)), traits_(slot_.traits()), settings_(settings) {
    if (!traits_.writes_hdr_metadata) hdr_obus_ = mux::hdr_metadata_obus(settings_.hdr);
    codec_ = avcodec_find_encoder_by_name(slot_.encoder.c_str());
    if (!codec_)
        throw RunError(fmt::format("encoder {} is not in this FFmpeg build (slot {})", slot_.encoder, slot_.label));
}

// A session left open (its chunks were refused) is flushed, its packets
// dropped: SVT-AV1 1.4 can hang in a teardown without end of stream.
LibavcodecEncoder::~LibavcodecEncoder() {
    if (!ctx_ || flushed_) return;
    try {
        flush([](av::PacketPtr) {}, {});
    } catch (...) {
        // The encoder is freed either way.
    }
}

template <typename Step>
void LibavcodecEncoder::guarded(int chunk, Step&& step) {
    try {
        try {
            step();
        } catch (const Cancelled&) {
            // A stop never waits on a teardown that may not return.
            if (ctx_) av::free_or_abandon_stopped_encoder(std::move(ctx_));
            throw;
        }
    } catch (const av::AvError& e) {
        throw RunError(fmt::format("encoding chunk {} on {} ({}): {}", chunk, slot_.label, slot_.encoder, e.what()));
    }
}

void LibavcodecEncoder::send_frame(AVFrame* frame, bool chunk_start) {
    // A fresh encoder starts with a key frame on its own.
    const bool force = chunk_start && frames_sent_ > 0 && traits_.forces_key_frames;
    frame->pict_type = force ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
    av::check(avcodec_send_frame(ctx_.get(), frame), "sending a frame");
    ++frames_sent_;
}

void LibavcodecEncoder::open(const ChunkHeader& chunk, const AVFrame& first) {
    name_this_thread(slot_.label);
    chunk_ = chunk.index;
    guarded(chunk.index, [&] {
        if (chunk.frames < 1) throw RunError(fmt::format("chunk {} has no frames", chunk.index));
        if (ctx_) throw RunError(fmt::format("{}: a session is open already", slot_.label));
        // The GOP is the session's first chunk: every chunk but a rung's
        // last has that length.
        try {
            ctx_ = open_codec(chunk.frames, &first);
        } catch (const av::AvError& e) {
            if (!traits_.gpu()) throw;
            throw EncoderOpenRefused(fmt::format("{}: {}", slot_.label, e.what()));
        }
        stream_ = av::make_codec_parameters();
        av::check(avcodec_parameters_from_context(stream_.get(), ctx_.get()), "reading encoder parameters");
        session_first_frame_ = next_frame_ = chunk.first_frame;
        frames_sent_ = 0;
        flushed_ = false;
    });
}

void LibavcodecEncoder::next_chunk(const ChunkHeader& chunk, bool anywhere) {
    name_this_thread(slot_.label);
    chunk_ = chunk.index;
    guarded(chunk.index, [&] {
        if (chunk.frames < 1) throw RunError(fmt::format("chunk {} has no frames", chunk.index));
        if (flushed_) throw RunError(fmt::format("{}: the encoder session is over", slot_.label));
        if (!ctx_) throw RunError(fmt::format("{}: chunk {} sent to no session", slot_.label, chunk.index));
        if (anywhere && traits_.forces_key_frames) {
            // Every chunk sent came back and this one starts with a forced
            // key frame: the session goes on at its first frame.
            session_first_frame_ = next_frame_ = chunk.first_frame;
        } else if (chunk.first_frame != next_frame_) {
            throw RunError(fmt::format("{}: chunk {} starts at frame {}, the session is at frame {}", slot_.label,
                                       chunk.index, chunk.first_frame, next_frame_));
        }
    });
}

void LibavcodecEncoder::send(av::FramePtr src, bool chunk_start, const PacketSink& sink, std::stop_token stop) {
    (void)sink;  // packets come out in drain()
    guarded(chunk_, [&] {
        if (!ctx_ || flushed_) throw RunError(fmt::format("{}: a frame sent to no session", slot_.label));
        if (stop.stop_requested()) throw Cancelled();
        AVFrame* frame = src.get();
        av::FramePtr converted;
        if (src->format != ctx_->pix_fmt && !src->hw_frames_ctx) {
            converted = av::make_frame();
            convert(src.get(), ctx_.get(), converted.get());
            src.reset();
            frame = converted.get();
        }
        // The frame number in the rung: an encoder process's parent and
        // the packets both speak in it.
        frame->pts = next_frame_++;
        send_frame(frame, chunk_start);
        // The encoder holds what it still needs.
    });
}

void LibavcodecEncoder::feed(const ChunkFrames& frames, const PacketSink& sink, std::stop_token stop) {
    const ChunkHeader header{frames.rung, frames.index, frames.first_frame, frames.count};
    name_this_thread(slot_.label);
    if (frames.count < 1) throw RunError(fmt::format("chunk {} has no frames", frames.index));
    if (ctx_ || flushed_) next_chunk(header, false);
    for (int i = 0; i < frames.count; ++i) {
        av::FramePtr src = frames.next();
        if (i == 0 && !ctx_) open(header, *src);
        send(std::move(src), i == 0, sink, stop);
        drain(sink, stop);
    }
}

void LibavcodecEncoder::flush(const PacketSink& sink, std::stop_token stop) {
    name_this_thread(slot_.label);
    guarded(-1, [&] {
        if (!ctx_ || flushed_) return;
        flushed_ = true;
        av::check(avcodec_send_frame(ctx_.get(), nullptr), "flushing");
        receive_packets(sink, stop);
    });
}

void LibavcodecEncoder::close() {
    // The session is over; the next chunk opens a new encoder.
    ctx_.reset();
    flushed_ = false;
}

// A session whose chunks failed is left as it is: the destructor flushes
// it (or a stop freed it already), and nothing sends to it again.
void LibavcodecEncoder::abandon() {}

void LibavcodecEncoder::probe() {
    try {
        open_codec(2, nullptr);
    } catch (const av::AvError& e) {
        throw RunError(fmt::format("opening {} on {}: {}", slot_.encoder, slot_.label, e.what()));
    }
}

// first: the chunk's first frame, whose layout (and GPU frames context,
// for frames in GPU memory) the encoder is opened for.
av::CodecContextPtr LibavcodecEncoder::open_codec(int gop, const AVFrame* first) const {
    const EncoderSettings& s = settings_;
    av::CodecContextPtr ctx = av::make_codec_context(codec_);
    describe_picture(ctx.get(), first);
    const RateControl rc = rate_control(traits_, s);
    ctx->bit_rate = rc.bit_rate;
    ctx->rc_buffer_size = rc.buffer_bits;
    // One key frame per chunk: the chunk is the GOP (closed), also in a
    // session of many chunks. Never 1: FFmpeg 6.1+ turns gop_size 1 into
    // SVT-AV1's force_key_frames, which SVT-AV1 2.x refuses in VBR mode
    // ("bad parameter"), so a 1-frame chunk (a 1-frame source, a last chunk
    // of 1 frame) could not be encoded on Debian 13. Its only frame is a
    // key frame either way.
    ctx->gop_size = std::max(2, gop);
    ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER | AV_CODEC_FLAG_CLOSED_GOP;
    ctx->thread_count = slot_.threads;

    AVDictionary* opts = family_options(ctx.get(), rc);
    int ret = 0;
    {
        const auto lock = av::lock_codec_lifecycle(codec_);
        ret = avcodec_open2(ctx.get(), codec_, &opts);
    }
    av_dict_free(&opts);
    av::check(ret, fmt::format("opening {} {}x{} at {} kb/s", slot_.encoder, s.width, s.height, rc.bit_rate / 1000));
    return ctx;
}

// The picture the encoder is given: size, pixel layout (and where it lies),
// frame rate and colour.
void LibavcodecEncoder::describe_picture(AVCodecContext* ctx, const AVFrame* first) const {
    const EncoderSettings& s = settings_;
    ctx->width = s.width;
    ctx->height = s.height;
    ctx->pix_fmt = input_format(first);
    if (first && first->hw_frames_ctx) {
        ctx->hw_frames_ctx = av_buffer_ref(first->hw_frames_ctx);
        if (!ctx->hw_frames_ctx) throw std::bad_alloc();
    }
    attach_device(ctx);
    ctx->framerate = s.frame_rate;
    ctx->time_base = av_inv_q(s.frame_rate);
    ctx->sample_aspect_ratio = AVRational{1, 1};
    ctx->color_primaries = s.color_primaries;
    ctx->color_trc = s.color_trc;
    ctx->colorspace = s.colorspace;
    ctx->color_range = s.color_range;
}

namespace {

// A constant-quality session's mini-GOP (16 frames), said rather than left
// to the wrapper: FFmpeg 5.1's libsvtav1 set it so, 6.0 and later leave
// SVT-AV1's own (32 frames in 1.4.1 at presets 8 and 10; in 2.3.0 16 at
// preset 10, 32 at 8), so the same chunk at the same CRF came out 6% apart
// with another FFmpeg and the budget chose other CRFs there. 16 is also the best
// measured at the same rate (SVT-AV1 1.4.1, preset 10: 32 frames -0.02 dB,
// 8 frames -0.04; docs/benchmarks.md, "One mini-GOP whatever the FFmpeg").
constexpr const char* kSvtAv1CrfParams = ":hierarchical-levels=4";

// SVT-AV1 1.4 supports a max rate only in CRF mode: plain VBR here.
void set_svt_av1_options(AVCodecContext* ctx, AVDictionary** opts, const EncoderSettings& s, int preset,
                         int threads) {
    av_dict_set_int(opts, "preset", preset, 0);
    av_dict_set(opts, "svtav1-params",
                fmt::format("lp={}{}{}", threads, av::svtav1_hdr_params(s.hdr), s.crf >= 0 ? kSvtAv1CrfParams : "")
                    .c_str(),
                0);
    if (s.crf >= 0) {
        ctx->bit_rate = 0;
        ctx->rc_buffer_size = 0;
        av_dict_set_int(opts, "crf", std::clamp(s.crf, 0, 63), 0);
    }
}

void set_aom_options(AVCodecContext* ctx, AVDictionary** opts, const RateControl& rc, int preset) {
    ctx->rc_max_rate = rc.max_rate;
    av_dict_set_int(opts, "cpu-used", preset, 0);
    av_dict_set(opts, "row-mt", "1", 0);
}

void set_nvenc_options(AVCodecContext* ctx, AVDictionary** opts, const RateControl& rc, int preset) {
    ctx->rc_max_rate = rc.max_rate;
    av_dict_set(opts, "preset", fmt::format("p{}", preset).c_str(), 0);
    av_dict_set(opts, "tune", "hq", 0);
    av_dict_set(opts, "rc", "vbr", 0);
    // The chunk is the GOP; no B-frames keeps decode order = output order.
    av_dict_set(opts, "bf", "0", 0);
    av_dict_set(opts, "forced-idr", "1", 0);  // a chunk start is a key frame
    // No closed captions in the AV1 (FFmpeg 7.1 would put a source's
    // CEA-708 into metadata OBUs): the master playlist says NONE.
    av_dict_set(opts, "a53cc", "0", 0);
    // Each frame's packet comes out as soon as it is encoded, so a
    // chunk is complete without an end of stream and the session can
    // stay open between chunks (EncoderWorker keeps it for the rung).
    av_dict_set(opts, "delay", "0", 0);
}

void set_quick_sync_options(AVCodecContext* ctx, AVDictionary** opts, const RateControl& rc, int preset) {
    ctx->rc_max_rate = rc.max_rate;
    av_dict_set_int(opts, "preset", preset, 0);
    av_dict_set(opts, "bf", "0", 0);
    av_dict_set(opts, "forced_idr", "1", 0);  // a chunk start is a key frame
    // The same as NVENC's delay 0 for Quick Sync: qsvenc hands a packet
    // back once async_depth frames are in flight; 1 is each frame's own.
    av_dict_set(opts, "async_depth", "1", 0);
}

}  // namespace

// What sets the encoder's family apart: its preset, rate mode and the
// options that keep a chunk one closed GOP whose packets come out in time.
// The caller frees the dictionary.
AVDictionary* LibavcodecEncoder::family_options(AVCodecContext* ctx, const RateControl& rc) const {
    const int preset = session_preset(traits_, settings_);
    AVDictionary* opts = nullptr;
    switch (traits_.family) {
    case gpu::EncoderFamily::svt_av1: set_svt_av1_options(ctx, &opts, settings_, preset, slot_.threads); break;
    case gpu::EncoderFamily::aom: set_aom_options(ctx, &opts, rc, preset); break;
    case gpu::EncoderFamily::nvenc: set_nvenc_options(ctx, &opts, rc, preset); break;
    case gpu::EncoderFamily::quick_sync: set_quick_sync_options(ctx, &opts, rc, preset); break;
    case gpu::EncoderFamily::nvenc_direct:
        throw RunError(fmt::format("{}: ladder's NVENC client is not a libavcodec encoder", slot_.label));
    }
    return opts;
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
    if (!traits_.gpu() || ctx->hw_frames_ctx) return;
    const AVHWDeviceType type = slot_.kind == gpu::DeviceKind::nvidia ? AV_HWDEVICE_TYPE_CUDA : AV_HWDEVICE_TYPE_QSV;
    ctx->hw_device_ctx = av::shared_hw_device(type, slot_.device).release();
}

void LibavcodecEncoder::convert(const AVFrame* src, const AVCodecContext* ctx, AVFrame* dst) const {
    if (!sws_)
        sws_.reset(sws_getContext(src->width, src->height, static_cast<AVPixelFormat>(src->format), ctx->width,
                                  ctx->height, ctx->pix_fmt, SWS_POINT | av::kBitExactScaling, nullptr, nullptr,
                                  nullptr));
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
// is where SVT-AV1 does most of a session's work (it buffers the frames
// sent), so a stop waits for one frame, not for the whole chunk.
void LibavcodecEncoder::drain(const PacketSink& sink, std::stop_token stop) {
    guarded(chunk_, [&] {
        if (ctx_) receive_packets(sink, stop);
    });
}

void LibavcodecEncoder::receive_packets(const PacketSink& sink, std::stop_token stop) {
    for (;;) {
        if (stop.stop_requested()) throw Cancelled();
        av::PacketPtr pkt = av::make_packet();
        int ret = avcodec_receive_packet(ctx_.get(), pkt.get());
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return;
        av::check(ret, "receiving a packet");
        if (pkt->pts < session_first_frame_ || pkt->pts >= next_frame_)
            throw RunError(fmt::format("{} returned a packet for frame {}, not one it was sent (frames {} to {})",
                                       slot_.encoder, pkt->pts, session_first_frame_, next_frame_ - 1));
        pkt->dts = pkt->pts;
        pkt->duration = 1;
        if (!hdr_obus_.empty() && (pkt->flags & AV_PKT_FLAG_KEY) &&
            !mux::insert_before_first_frame(pkt.get(), hdr_obus_))
            throw RunError(fmt::format("{}: a key frame packet whose OBUs cannot be walked: no place for the HDR "
                                       "metadata", slot_.encoder));
        sink(std::move(pkt));
    }
}

}  // namespace ladder::engine
