#include "engine/encode/backend/nvenc_encoder.hpp"

#include <fmt/format.h>

#include <cstring>

#include "av/extradata.hpp"
#include "av/hw_device.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/thread_name.hpp"
#include "mux/av1_metadata_obu.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

namespace {

bool deeper_than_8_bits(AVPixelFormat format) {
    const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(format);
    return desc && desc->comp[0].depth > 8;
}

CUcontext cuda_context(const AVBufferRef& device) {
    const auto* ctx = reinterpret_cast<const AVHWDeviceContext*>(device.data);
    return static_cast<const AVCUDADeviceContext*>(ctx->hwctx)->cuda_ctx;
}

}  // namespace

NvencEncoder::NvencEncoder(gpu::EncoderSlot slot, EncoderSettings settings)
    : slot_(std::move(slot)), traits_(slot_.traits()), settings_(settings) {
    hdr_obus_ = mux::hdr_metadata_obus(settings_.hdr);
}

// A session still open is ended and its packets dropped: nothing waits on
// them any more.
NvencEncoder::~NvencEncoder() = default;

NvencSessionSettings NvencEncoder::session_settings(const AVFrame* first) const {
    const EncoderSettings& s = settings_;
    const RateControl rc = rate_control(traits_, s);
    NvencSessionSettings n;
    n.width = s.width;
    n.height = s.height;
    AVPixelFormat format = s.pix_fmt;
    if (first && first->hw_frames_ctx)
        format = reinterpret_cast<const AVHWFramesContext*>(first->hw_frames_ctx->data)->sw_format;
    else if (first)
        format = static_cast<AVPixelFormat>(first->format);
    n.ten_bit = deeper_than_8_bits(format);
    n.frame_rate = s.frame_rate;
    n.preset = session_preset(traits_, s);
    n.bit_rate = rc.bit_rate;
    n.max_rate = rc.max_rate;
    n.buffer_bits = rc.buffer_bits;
    n.color_primaries = s.color_primaries;
    n.color_trc = s.color_trc;
    n.colorspace = s.colorspace;
    n.full_range = s.color_range == AVCOL_RANGE_JPEG;
    return n;
}

// On the GPU's one CUDA context: the frames' own (NVDEC and scale_cuda made
// them there), else the process-wide one of the slot's GPU.
std::unique_ptr<NvencSession> NvencEncoder::open_session(const AVFrame* first) {
    if (first && first->hw_frames_ctx) {
        const auto* frames = reinterpret_cast<const AVHWFramesContext*>(first->hw_frames_ctx->data);
        device_ = av::ref_buffer(frames->device_ref);
    } else {
        try {
            device_ = av::shared_hw_device(AV_HWDEVICE_TYPE_CUDA, slot_.device);
        } catch (const std::exception& e) {
            throw EncoderOpenRefused(fmt::format("{}: no CUDA context on GPU {}: {}", slot_.label, slot_.device,
                                                 e.what()));
        }
    }
    NvencSessionSettings s = session_settings(first);
    ten_bit_ = s.ten_bit;
    try {
        return std::make_unique<NvencSession>(cuda_context(*device_), s, slot_.label);
    } catch (const std::runtime_error& e) {
        // The library or driver is missing or too old: this GPU cannot encode.
        if (dynamic_cast<const RunError*>(&e)) throw;
        throw EncoderOpenRefused(fmt::format("{}: {}", slot_.label, e.what()));
    }
}

av::CodecParametersPtr NvencEncoder::stream_parameters(const std::vector<std::uint8_t>& sequence_header) const {
    const EncoderSettings& s = settings_;
    av::CodecParametersPtr par = av::make_codec_parameters();
    par->codec_type = AVMEDIA_TYPE_VIDEO;
    par->codec_id = AV_CODEC_ID_AV1;
    par->width = s.width;
    par->height = s.height;
    par->format = ten_bit_ ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
    par->sample_aspect_ratio = AVRational{1, 1};
    par->color_primaries = s.color_primaries;
    par->color_trc = s.color_trc;
    par->color_space = s.colorspace;
    par->color_range = s.color_range;
    par->bit_rate = rate_control(traits_, s).bit_rate;
    av::set_extradata(par.get(), sequence_header);
    return par;
}

void NvencEncoder::open(const ChunkHeader& chunk, const AVFrame& first) {
    name_this_thread(slot_.label);
    if (chunk.frames < 1) throw RunError(fmt::format("chunk {} has no frames", chunk.index));
    if (session_ && !ahead_) throw RunError(fmt::format("{}: a session is open already", slot_.label));
    if (ahead_ && !fits(first)) close();
    ahead_ = false;
    if (!session_) {
        session_ = open_session(&first);
        stream_ = stream_parameters(session_->sequence_header());
    }
    next_frame_ = chunk.first_frame;
    chunk_frames_left_ = chunk.frames;
    flushed_ = false;
}

// The session takes its settings' pixel format on the slot GPU's shared
// CUDA context: the one NVDEC and scale_cuda make that GPU's frames on
// (av::shared_hw_device), so the first chunk normally goes on in it.
bool NvencEncoder::open_ahead() {
    if (session_) return ahead_;
    name_this_thread(slot_.label);
    session_ = open_session(nullptr);
    stream_ = stream_parameters(session_->sequence_header());
    flushed_ = false;
    ahead_ = true;
    return true;
}

bool NvencEncoder::fits(const AVFrame& first) const {
    if (session_settings(&first).ten_bit != ten_bit_) return false;
    if (!first.hw_frames_ctx) return true;
    const auto* frames = reinterpret_cast<const AVHWFramesContext*>(first.hw_frames_ctx->data);
    return cuda_context(*frames->device_ref) == cuda_context(*device_);
}

void NvencEncoder::next_chunk(const ChunkHeader& chunk, bool anywhere) {
    if (chunk.frames < 1) throw RunError(fmt::format("chunk {} has no frames", chunk.index));
    if (!session_ || flushed_) throw RunError(fmt::format("{}: chunk {} sent to no session", slot_.label, chunk.index));
    chunk_frames_left_ = chunk.frames;
    if (anywhere) next_frame_ = chunk.first_frame;
    else if (chunk.first_frame != next_frame_)
        throw RunError(fmt::format("{}: chunk {} starts at frame {}, the session is at frame {}", slot_.label,
                                   chunk.index, chunk.first_frame, next_frame_));
}

// Pictures come back a few frames late (NvencSession keeps some in flight);
// a chunk's last frame brings the rest, so every chunk is whole when its
// last frame is sent, as the session protocol asks of a session that may go
// on anywhere in the rung.
void NvencEncoder::send(av::FramePtr frame, bool chunk_start, const PacketSink& sink, std::stop_token stop) {
    if (!session_ || flushed_) throw RunError(fmt::format("{}: a frame sent to no session", slot_.label));
    if (stop.stop_requested()) throw Cancelled();
    std::vector<NvencPicture> back = session_->encode(std::move(frame), next_frame_++, chunk_start);
    if (--chunk_frames_left_ <= 0)
        for (NvencPicture& p : session_->finish()) back.push_back(std::move(p));
    for (const NvencPicture& picture : back) sink(packet(picture));
}

av::PacketPtr NvencEncoder::packet(const NvencPicture& picture) const {
    av::PacketPtr pkt = av::make_packet();
    if (av_new_packet(pkt.get(), static_cast<int>(picture.bytes.size())) < 0) throw std::bad_alloc();
    std::memcpy(pkt->data, picture.bytes.data(), picture.bytes.size());
    pkt->pts = pkt->dts = picture.pts;
    pkt->duration = 1;
    if (picture.key) pkt->flags |= AV_PKT_FLAG_KEY;
    if (!hdr_obus_.empty() && picture.key && !mux::insert_before_first_frame(pkt.get(), hdr_obus_))
        throw RunError(fmt::format("{}: a key frame whose OBUs cannot be walked: no place for the HDR metadata",
                                   slot_.label));
    return pkt;
}

// Every picture came back by its chunk's last frame.
void NvencEncoder::drain(const PacketSink&, std::stop_token) {}

void NvencEncoder::flush(const PacketSink& sink, std::stop_token) {
    if (!session_ || flushed_) return;
    flushed_ = true;
    for (const NvencPicture& picture : session_->finish()) sink(packet(picture));
    session_->end_of_stream();
}

void NvencEncoder::close() {
    session_.reset();
    device_.reset();
    flushed_ = false;
    ahead_ = false;
}

void NvencEncoder::abandon() { close(); }

void NvencEncoder::probe() {
    try {
        open_session(nullptr).reset();
        device_.reset();
    } catch (const std::exception& e) {
        throw RunError(fmt::format("opening NVENC on {}: {}", slot_.label, e.what()));
    }
}

}  // namespace ladder::engine
