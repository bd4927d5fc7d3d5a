#include "engine/encode/backend/libavcodec_encoder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "av/av_error.hpp"
#include "av/codec_formats.hpp"
#include "av/codec_lifecycle.hpp"
#include "av/extradata.hpp"
#include "av/hw_device.hpp"
#include "engine/base/errors.hpp"
#include "engine/encode/backend/thread_name.hpp"
#include "mux/av1_metadata_obu.hpp"
#include "mux/av1_sequence_header.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

LibavcodecEncoder::LibavcodecEncoder(gpu::EncoderSlot slot, EncoderSettings settings)
    : slot_(std::move(slot)), settings_(settings), chunks_(slot_.encoder, slot_.label) {
    if (slot_.encoder != "libsvtav1") hdr_obus_ = mux::hdr_metadata_obus(settings_.hdr);
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

namespace {
// Whether the encoder is told where each chunk starts. The CPU encoders are
// not: SVT-AV1's closed GOP of one chunk puts a key frame with a sequence
// header at every chunk start (FFmpeg 6.1+ maps a forced one to an option
// its VBR mode refuses), and libaom encodes one chunk per session
// (encoder_keeps_sessions). NVENC and Quick Sync are, on top of their GOP
// length.
bool forces_key_frames(const std::string& encoder) { return encoder != "libsvtav1" && encoder != "libaom-av1"; }

ChunkFrames frames_of(const RawChunk& chunk, std::size_t& next) {
    ChunkFrames frames;
    frames.rung = chunk.rung;
    frames.index = chunk.index;
    frames.first_frame = chunk.first_frame;
    frames.count = static_cast<int>(chunk.frames.size());
    frames.next = [&chunk, &next] { return av::ref_frame(chunk.frames.at(next++).get()); };
    return frames;
}
}  // namespace

std::vector<EncodedChunk> LibavcodecEncoder::send(const RawChunk& chunk, std::stop_token stop) {
    if (chunk.frames.empty()) throw RunError(fmt::format("chunk {} has no frames", chunk.index));
    if (ctx_ && chunk.first_frame != next_frame_ && chunks_.empty() && forces_key_frames(slot_.encoder)) {
        // A GPU session the slot kept open goes on with another chunk of
        // its rung, anywhere in it: every chunk it was sent came back, and
        // this one starts with a forced key frame, so nothing of the
        // stream before it is referenced.
        chunks_.reset();
        session_first_frame_ = next_frame_ = chunk.first_frame;
    }
    chunks_.expect(chunk.rung, chunk.index, chunk.first_frame, static_cast<std::int64_t>(chunk.frames.size()));
    std::size_t next = 0;
    feed(frames_of(chunk, next), [this](av::PacketPtr p) { chunks_.add(std::move(p)); }, stop);
    return chunks_.take_complete(*stream_);
}

std::vector<EncodedChunk> LibavcodecEncoder::finish(std::stop_token stop) {
    if (!ctx_) return {};
    flush([this](av::PacketPtr p) { chunks_.add(std::move(p)); }, stop);
    std::vector<EncodedChunk> rest = chunks_.take_rest(*stream_);
    // The session is over; the next send() opens a new encoder.
    ctx_.reset();
    flushed_ = false;
    chunks_.reset();
    return rest;
}

EncodedChunk LibavcodecEncoder::encode(const RawChunk& chunk, std::stop_token stop) {
    if (ctx_) throw RunError(fmt::format("{}: encode() on an encoder with a session open", slot_.label));
    return encode_as_session(chunk, stop, slot_.label);
}

template <typename Step>
void LibavcodecEncoder::guarded(int chunk, Step&& step) {
    name_this_thread(slot_.label);
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
    const bool force = chunk_start && frames_sent_ > 0 && forces_key_frames(slot_.encoder);
    frame->pict_type = force ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
    av::check(avcodec_send_frame(ctx_.get(), frame), "sending a frame");
    ++frames_sent_;
}

void LibavcodecEncoder::feed(const ChunkFrames& frames, const PacketSink& sink, std::stop_token stop) {
    guarded(frames.index, [&] {
        if (frames.count < 1) throw RunError(fmt::format("chunk {} has no frames", frames.index));
        if (flushed_) throw RunError(fmt::format("{}: the encoder session is over", slot_.label));
        if (ctx_ && frames.first_frame != next_frame_)
            throw RunError(fmt::format("{}: chunk {} starts at frame {}, the session is at frame {}", slot_.label,
                                       frames.index, frames.first_frame, next_frame_));
        av::FramePtr converted = av::make_frame();
        for (int i = 0; i < frames.count; ++i) {
            av::FramePtr src = frames.next();
            if (!ctx_) {
                // The GOP is the session's first chunk: every chunk but a
                // rung's last has that length.
                try {
                    ctx_ = open(frames.count, src.get());
                } catch (const av::AvError& e) {
                    if (slot_.kind == gpu::DeviceKind::cpu) throw;
                    throw EncoderOpenRefused(fmt::format("{}: {}", slot_.label, e.what()));
                }
                stream_ = av::make_codec_parameters();
                av::check(avcodec_parameters_from_context(stream_.get(), ctx_.get()), "reading encoder parameters");
                session_first_frame_ = next_frame_ = frames.first_frame;
                frames_sent_ = 0;
            }
            if (stop.stop_requested()) throw Cancelled();
            AVFrame* frame = src.get();
            if (src->format != ctx_->pix_fmt && !src->hw_frames_ctx) {
                convert(src.get(), ctx_.get(), converted.get());
                src.reset();
                frame = converted.get();
            }
            // The frame number in the rung: an encoder process's parent and
            // the packets both speak in it.
            frame->pts = next_frame_++;
            send_frame(frame, i == 0);
            src.reset();  // the encoder holds what it still needs
            av_frame_unref(converted.get());
            drain(sink, stop);
        }
    });
}

void LibavcodecEncoder::flush(const PacketSink& sink, std::stop_token stop) {
    guarded(-1, [&] {
        if (!ctx_ || flushed_) return;
        flushed_ = true;
        av::check(avcodec_send_frame(ctx_.get(), nullptr), "flushing");
        drain(sink, stop);
    });
}

void LibavcodecEncoder::probe() {
    try {
        open(2, nullptr);
    } catch (const av::AvError& e) {
        throw RunError(fmt::format("opening {} on {}: {}", slot_.encoder, slot_.label, e.what()));
    }
}

// first: the chunk's first frame, whose layout (and GPU frames context,
// for frames in GPU memory) the encoder is opened for.
av::CodecContextPtr LibavcodecEncoder::open(int gop, const AVFrame* first) const {
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
    const RateControl rc = rate_control(slot_.encoder, s);
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

    const int preset = s.preset >= 0 ? s.preset : default_preset(slot_.encoder);
    AVDictionary* opts = nullptr;
    if (slot_.encoder == "libsvtav1") {
        // SVT-AV1 1.4 supports a max rate only in CRF mode: plain VBR here.
        av_dict_set_int(&opts, "preset", std::clamp(preset, 0, 13), 0);
        av_dict_set(&opts, "svtav1-params",
                    fmt::format("lp={}{}", slot_.threads, av::svtav1_hdr_params(s.hdr)).c_str(), 0);
        if (s.crf >= 0) {
            ctx->bit_rate = 0;
            ctx->rc_buffer_size = 0;
            av_dict_set_int(&opts, "crf", std::clamp(s.crf, 0, 63), 0);
        }
    } else if (slot_.encoder == "libaom-av1") {
        ctx->rc_max_rate = rc.max_rate;
        av_dict_set_int(&opts, "cpu-used", std::clamp(preset, 0, 8), 0);
        av_dict_set(&opts, "row-mt", "1", 0);
    } else if (slot_.encoder == "av1_nvenc") {
        ctx->rc_max_rate = rc.max_rate;
        av_dict_set(&opts, "preset", fmt::format("p{}", std::clamp(preset, 1, 7)).c_str(), 0);
        av_dict_set(&opts, "tune", "hq", 0);
        av_dict_set(&opts, "rc", "vbr", 0);
        // The chunk is the GOP; no B-frames keeps decode order = output order.
        av_dict_set(&opts, "bf", "0", 0);
        av_dict_set(&opts, "forced-idr", "1", 0);  // a chunk start is a key frame
        // No closed captions in the AV1 (FFmpeg 7.1 would put a source's
        // CEA-708 into metadata OBUs): the master playlist says NONE.
        av_dict_set(&opts, "a53cc", "0", 0);
        // Each frame's packet comes out as soon as it is encoded, so a
        // chunk is complete without an end of stream and the session can
        // stay open between chunks (EncoderWorker keeps it for the rung).
        av_dict_set(&opts, "delay", "0", 0);
    } else if (slot_.encoder == "av1_qsv") {
        ctx->rc_max_rate = rc.max_rate;
        av_dict_set_int(&opts, "preset", std::clamp(preset, 1, 7), 0);
        av_dict_set(&opts, "bf", "0", 0);
        av_dict_set(&opts, "forced_idr", "1", 0);  // a chunk start is a key frame
        // The same for Quick Sync: qsvenc hands a packet back once
        // async_depth frames are in flight; 1 is each frame's own.
        av_dict_set(&opts, "async_depth", "1", 0);
    }
    int ret = 0;
    {
        const auto lock = av::lock_codec_lifecycle(codec_);
        ret = avcodec_open2(ctx.get(), codec_, &opts);
    }
    av_dict_free(&opts);
    av::check(ret, fmt::format("opening {} {}x{} at {} kb/s", slot_.encoder, s.width, s.height, rc.bit_rate / 1000));
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
// is where SVT-AV1 does most of a session's work (it buffers the frames
// sent), so a stop waits for one frame, not for the whole chunk.
void LibavcodecEncoder::drain(const PacketSink& sink, std::stop_token stop) {
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
