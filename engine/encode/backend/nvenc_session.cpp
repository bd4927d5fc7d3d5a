#include "engine/encode/backend/nvenc_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "av/bitexact_scaling.hpp"
#include "engine/base/errors.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace ladder::engine {

namespace {

// Registrations kept per session: FFmpeg's CUDA frame pools hand the same
// few dozen buffers round, so each is registered once.
constexpr std::size_t kMostRegistered = 64;

GUID preset_guid(int preset) {
    const GUID presets[] = {NV_ENC_PRESET_P1_GUID, NV_ENC_PRESET_P2_GUID, NV_ENC_PRESET_P3_GUID, NV_ENC_PRESET_P4_GUID,
                            NV_ENC_PRESET_P5_GUID, NV_ENC_PRESET_P6_GUID, NV_ENC_PRESET_P7_GUID};
    return presets[std::clamp(preset, 1, 7) - 1];
}

// NVENC's input layouts for ladder's pixel formats; UNDEFINED for others.
NV_ENC_BUFFER_FORMAT buffer_format(AVPixelFormat f) {
    switch (f) {
    case AV_PIX_FMT_YUV420P: return NV_ENC_BUFFER_FORMAT_IYUV;
    case AV_PIX_FMT_NV12: return NV_ENC_BUFFER_FORMAT_NV12;
    case AV_PIX_FMT_P010: return NV_ENC_BUFFER_FORMAT_YUV420_10BIT;
    default: return NV_ENC_BUFFER_FORMAT_UNDEFINED;
    }
}

// Copies a host frame's planes into a locked input buffer, as NVENC lays
// its formats out: chroma after `height` rows of luma; planar chroma (IYUV)
// at half the pitch, U then V.
void copy_planes(const AVFrame& f, std::uint8_t* dst, int pitch, NV_ENC_BUFFER_FORMAT format) {
    const int bytes = format == NV_ENC_BUFFER_FORMAT_YUV420_10BIT ? 2 : 1;
    const int chroma_rows = (f.height + 1) / 2;
    av_image_copy_plane(dst, pitch, f.data[0], f.linesize[0], f.width * bytes, f.height);
    std::uint8_t* chroma = dst + static_cast<std::ptrdiff_t>(pitch) * f.height;
    if (format == NV_ENC_BUFFER_FORMAT_IYUV) {
        const int half = pitch / 2;
        const int width = (f.width + 1) / 2;
        av_image_copy_plane(chroma, half, f.data[1], f.linesize[1], width, chroma_rows);
        av_image_copy_plane(chroma + static_cast<std::ptrdiff_t>(half) * chroma_rows, half, f.data[2], f.linesize[2],
                            width, chroma_rows);
    } else {
        av_image_copy_plane(chroma, pitch, f.data[1], f.linesize[1], (f.width + 1) / 2 * 2 * bytes, chroma_rows);
    }
}

}  // namespace

class NvencSession::Current {
public:
    Current(const gpu::NvencLibrary& lib, CUcontext context) : lib_(lib) {
        if (lib_.push_context(context) != CUDA_SUCCESS) throw RunError("cannot make the GPU's CUDA context current");
    }
    Current(const Current&) = delete;
    Current& operator=(const Current&) = delete;
    ~Current() {
        CUcontext popped = nullptr;
        lib_.pop_context(&popped);
    }

private:
    const gpu::NvencLibrary& lib_;
};

NvencSession::NvencSession(CUcontext context, const NvencSessionSettings& settings, const std::string& label)
    : lib_(gpu::nvenc_library()), context_(context), label_(label), width_(settings.width), height_(settings.height) {
    const Current current(lib_, context_);
    try {
        open(settings);
    } catch (...) {
        for (NV_ENC_OUTPUT_PTR b : bitstreams_) lib_.api.nvEncDestroyBitstreamBuffer(encoder_, b);
        if (encoder_) lib_.api.nvEncDestroyEncoder(encoder_);
        throw;
    }
}

// NVIDIA's teardown, in order: the end of stream, the frames in flight
// unmapped, resources unregistered, buffers and session destroyed.
NvencSession::~NvencSession() {
    try {
        const Current current(lib_, context_);
        if (pictures_ > 0 && !ended_) {
            NV_ENC_PIC_PARAMS eos{};
            eos.version = NV_ENC_PIC_PARAMS_VER;
            eos.encodePicFlags = NV_ENC_PIC_FLAG_EOS;
            lib_.api.nvEncEncodePicture(encoder_, &eos);
        }
        for (const InFlight& f : in_flight_)
            if (f.mapped) lib_.api.nvEncUnmapInputResource(encoder_, f.mapped);
        for (const auto& [buffer, reg] : registered_) lib_.api.nvEncUnregisterResource(encoder_, reg);
        for (NV_ENC_INPUT_PTR in : inputs_) lib_.api.nvEncDestroyInputBuffer(encoder_, in);
        for (NV_ENC_OUTPUT_PTR b : bitstreams_) lib_.api.nvEncDestroyBitstreamBuffer(encoder_, b);
        lib_.api.nvEncDestroyEncoder(encoder_);
    } catch (...) {
        // No context to release the session in: the driver frees it with the process.
    }
}

void NvencSession::open(const NvencSessionSettings& s) {
    NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS params{};
    params.version = NV_ENC_OPEN_ENCODE_SESSION_EX_PARAMS_VER;
    params.deviceType = NV_ENC_DEVICE_TYPE_CUDA;
    params.device = context_;
    params.apiVersion = NVENCAPI_VERSION;
    if (const NVENCSTATUS st = lib_.api.nvEncOpenEncodeSessionEx(&params, &encoder_); st != NV_ENC_SUCCESS) {
        encoder_ = nullptr;
        throw EncoderOpenRefused(fmt::format("{}: NVENC refused a session: nvEncOpenEncodeSessionEx returned {}",
                                             label_, static_cast<int>(st)));
    }
    NV_ENC_CONFIG config = configure(s);
    NV_ENC_INITIALIZE_PARAMS init{};
    init.version = NV_ENC_INITIALIZE_PARAMS_VER;
    init.encodeGUID = NV_ENC_CODEC_AV1_GUID;
    init.presetGUID = preset_guid(s.preset);
    init.tuningInfo = NV_ENC_TUNING_INFO_HIGH_QUALITY;
    init.encodeWidth = init.maxEncodeWidth = init.darWidth = static_cast<std::uint32_t>(s.width);
    init.encodeHeight = init.maxEncodeHeight = init.darHeight = static_cast<std::uint32_t>(s.height);
    init.frameRateNum = static_cast<std::uint32_t>(s.frame_rate.num);
    init.frameRateDen = static_cast<std::uint32_t>(s.frame_rate.den);
    init.enablePTD = 1;
    init.encodeConfig = &config;
    if (const NVENCSTATUS st = lib_.api.nvEncInitializeEncoder(encoder_, &init); st != NV_ENC_SUCCESS)
        throw EncoderOpenRefused(fmt::format("{}: NVENC could not open {}x{} AV1: {} ({})", label_, s.width, s.height,
                                             lib_.api.nvEncGetLastErrorString(encoder_), static_cast<int>(st)));
    while (bitstreams_.size() < kInFlight) {
        NV_ENC_CREATE_BITSTREAM_BUFFER out{};
        out.version = NV_ENC_CREATE_BITSTREAM_BUFFER_VER;
        check(lib_.api.nvEncCreateBitstreamBuffer(encoder_, &out), "creating its bitstream buffers");
        bitstreams_.push_back(out.bitstreamBuffer);
    }
}

// The preset's configuration, then what keeps a chunk one closed GOP whose
// pictures come out as they go in: no B-frames, no look-ahead, key frames
// only where forced (each chunk start), a sequence header on each.
NV_ENC_CONFIG NvencSession::configure(const NvencSessionSettings& s) {
    NV_ENC_PRESET_CONFIG preset{};
    preset.version = NV_ENC_PRESET_CONFIG_VER;
    preset.presetCfg.version = NV_ENC_CONFIG_VER;
    check(lib_.api.nvEncGetEncodePresetConfigEx(encoder_, NV_ENC_CODEC_AV1_GUID, preset_guid(s.preset),
                                                NV_ENC_TUNING_INFO_HIGH_QUALITY, &preset),
          "reading its preset");
    NV_ENC_CONFIG c = preset.presetCfg;
    c.version = NV_ENC_CONFIG_VER;
    c.profileGUID = NV_ENC_AV1_PROFILE_MAIN_GUID;
    c.gopLength = NVENC_INFINITE_GOPLENGTH;
    c.frameIntervalP = 1;
    c.rcParams.rateControlMode = NV_ENC_PARAMS_RC_VBR;
    c.rcParams.averageBitRate = static_cast<std::uint32_t>(s.bit_rate);
    c.rcParams.maxBitRate = static_cast<std::uint32_t>(s.max_rate);
    c.rcParams.vbvBufferSize = static_cast<std::uint32_t>(s.buffer_bits);
    c.rcParams.vbvInitialDelay = static_cast<std::uint32_t>(s.buffer_bits);
    c.rcParams.enableLookahead = 0;
    NV_ENC_CONFIG_AV1& av1 = c.encodeCodecConfig.av1Config;
    av1.idrPeriod = NVENC_INFINITE_GOPLENGTH;
    av1.repeatSeqHdr = 1;
    av1.disableSeqHdr = 0;
    av1.outputAnnexBFormat = 0;
    av1.chromaFormatIDC = 1;
    av1.inputPixelBitDepthMinus8 = av1.pixelBitDepthMinus8 = s.ten_bit ? 2 : 0;
    av1.colorPrimaries = static_cast<NV_ENC_VUI_COLOR_PRIMARIES>(s.color_primaries);
    av1.transferCharacteristics = static_cast<NV_ENC_VUI_TRANSFER_CHARACTERISTIC>(s.color_trc);
    av1.matrixCoefficients = static_cast<NV_ENC_VUI_MATRIX_COEFFS>(s.colorspace);
    av1.colorRange = s.full_range ? 1 : 0;
    return c;
}

std::vector<NvencPicture> NvencSession::encode(av::FramePtr frame, std::int64_t pts, bool force_key) {
    const Current current(lib_, context_);
    std::vector<NvencPicture> back;
    // Buffers go round: when all are in flight, the oldest picture's are next.
    if (in_flight_.size() == kInFlight) back.push_back(take_oldest());
    const std::size_t buffer = next_buffer_;
    next_buffer_ = (next_buffer_ + 1) % kInFlight;
    NV_ENC_PIC_PARAMS pic{};
    pic.version = NV_ENC_PIC_PARAMS_VER;
    pic.inputWidth = static_cast<std::uint32_t>(width_);
    pic.inputHeight = static_cast<std::uint32_t>(height_);
    std::uint32_t pitch = 0;
    InFlight sent;
    sent.buffer = buffer;
    sent.pts = pts;
    if (frame->hw_frames_ctx) {
        pic.inputBuffer = sent.mapped = mapped_device_input(*frame, pic.bufferFmt, pitch);
        sent.frame = std::move(frame);  // NVENC reads it until the picture is back
    } else {
        pic.inputBuffer = host_input(*frame, buffer, pic.bufferFmt, pitch);
    }
    pic.inputPitch = pitch;
    pic.outputBitstream = bitstreams_[buffer];
    pic.pictureStruct = NV_ENC_PIC_STRUCT_FRAME;
    pic.inputTimeStamp = static_cast<std::uint64_t>(pts);
    pic.inputDuration = 1;
    if (force_key) pic.encodePicFlags = NV_ENC_PIC_FLAG_FORCEIDR | NV_ENC_PIC_FLAG_OUTPUT_SPSPPS;
    ++pictures_;
    const NVENCSTATUS status = lib_.api.nvEncEncodePicture(encoder_, &pic);
    if (status != NV_ENC_SUCCESS && sent.mapped) lib_.api.nvEncUnmapInputResource(encoder_, sent.mapped);
    check(status, "encoding a picture");
    in_flight_.push_back(std::move(sent));
    return back;
}

std::vector<NvencPicture> NvencSession::finish() {
    const Current current(lib_, context_);
    std::vector<NvencPicture> back;
    while (!in_flight_.empty()) back.push_back(take_oldest());
    return back;
}

// A host frame copied into one of the session's input buffers (made for the
// first frame's layout); other layouts are converted to yuv420p or p010
// first.
void* NvencSession::host_input(const AVFrame& frame, std::size_t buffer, NV_ENC_BUFFER_FORMAT& format,
                               std::uint32_t& pitch) {
    const AVFrame* src = &frame;
    format = buffer_format(static_cast<AVPixelFormat>(frame.format));
    if (format == NV_ENC_BUFFER_FORMAT_UNDEFINED) {
        const auto* desc = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame.format));
        const AVPixelFormat to = desc && desc->comp[0].depth > 8 ? AV_PIX_FMT_P010 : AV_PIX_FMT_YUV420P;
        if (!sws_)
            sws_.reset(sws_getContext(frame.width, frame.height, static_cast<AVPixelFormat>(frame.format), frame.width,
                                      frame.height, to, SWS_POINT | av::kBitExactScaling, nullptr, nullptr, nullptr));
        if (!sws_) throw RunError(fmt::format("{}: cannot convert frames for NVENC", label_));
        converted_ = av::make_frame();
        converted_->width = frame.width;
        converted_->height = frame.height;
        converted_->format = to;
        if (av_frame_get_buffer(converted_.get(), 0) < 0 || sws_scale_frame(sws_.get(), converted_.get(), &frame) < 0)
            throw RunError(fmt::format("{}: converting a frame for NVENC failed", label_));
        src = converted_.get();
        format = buffer_format(to);
    }
    if (inputs_.empty()) input_format_ = format;
    while (inputs_.size() < kInFlight) {
        NV_ENC_CREATE_INPUT_BUFFER in{};
        in.version = NV_ENC_CREATE_INPUT_BUFFER_VER;
        in.width = static_cast<std::uint32_t>(width_);
        in.height = static_cast<std::uint32_t>(height_);
        in.bufferFmt = format;
        check(lib_.api.nvEncCreateInputBuffer(encoder_, &in), "creating its input buffers");
        inputs_.push_back(in.inputBuffer);
    }
    if (format != input_format_) throw RunError(fmt::format("{}: a frame in another layout mid-session", label_));
    NV_ENC_LOCK_INPUT_BUFFER lock{};
    lock.version = NV_ENC_LOCK_INPUT_BUFFER_VER;
    lock.inputBuffer = inputs_[buffer];
    check(lib_.api.nvEncLockInputBuffer(encoder_, &lock), "locking an input buffer");
    copy_planes(*src, static_cast<std::uint8_t*>(lock.bufferDataPtr), static_cast<int>(lock.pitch), format);
    pitch = lock.pitch;
    check(lib_.api.nvEncUnlockInputBuffer(encoder_, inputs_[buffer]), "unlocking an input buffer");
    return inputs_[buffer];
}

namespace {

// How NVENC must read a CUDA frame of this pool, from where the frame's
// planes are: FFmpeg's CUDA frames keep them in one allocation, chroma right
// after the pool's rows of luma; a yuv420p pool puts V before U, each at
// half the pitch (hwcontext_cuda does so for NVENC), which NVENC calls YV12,
// not IYUV (U first: read so, every picture's colours come out swapped).
// A layout NVENC cannot read is an error, not a picture with wrong colours.
NV_ENC_BUFFER_FORMAT device_buffer_format(const AVFrame& frame, const AVHWFramesContext& pool, const std::string& label) {
    const auto bad = [&] {
        return RunError(fmt::format("{}: GPU frames in {} laid out as NVENC cannot read them (planes not one after "
                                    "the other at the pool's {} rows)",
                                    label, av_get_pix_fmt_name(pool.sw_format), pool.height));
    };
    const std::ptrdiff_t luma = static_cast<std::ptrdiff_t>(frame.linesize[0]) * pool.height;
    switch (pool.sw_format) {
    case AV_PIX_FMT_NV12:
    case AV_PIX_FMT_P010:
        if (frame.data[1] != frame.data[0] + luma || frame.linesize[1] != frame.linesize[0]) throw bad();
        return pool.sw_format == AV_PIX_FMT_NV12 ? NV_ENC_BUFFER_FORMAT_NV12 : NV_ENC_BUFFER_FORMAT_YUV420_10BIT;
    case AV_PIX_FMT_YUV420P: {
        const bool v_first = frame.data[2] < frame.data[1];
        const std::uint8_t* first = v_first ? frame.data[2] : frame.data[1];
        const std::uint8_t* second = v_first ? frame.data[1] : frame.data[2];
        const int half = frame.linesize[0] / 2;
        if (first != frame.data[0] + luma || frame.linesize[1] != half || frame.linesize[2] != half ||
            second != first + static_cast<std::ptrdiff_t>(half) * (pool.height / 2))
            throw bad();
        return v_first ? NV_ENC_BUFFER_FORMAT_YV12 : NV_ENC_BUFFER_FORMAT_IYUV;
    }
    default:
        throw RunError(fmt::format("{}: NVENC takes GPU frames in nv12, p010 or yuv420p, not {}", label,
                                   av_get_pix_fmt_name(pool.sw_format)));
    }
}

}  // namespace

// A CUDA frame where it is: its buffer registered (once) and mapped for
// this picture, in the layout its planes have (device_buffer_format).
void* NvencSession::mapped_device_input(const AVFrame& frame, NV_ENC_BUFFER_FORMAT& format, std::uint32_t& pitch) {
    const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame.hw_frames_ctx->data);
    format = device_buffer_format(frame, *frames, label_);
    const void* buffer = frame.data[0];
    pitch = static_cast<std::uint32_t>(frame.linesize[0]);
    auto it = registered_.find(buffer);
    if (it == registered_.end()) {
        if (registered_.size() >= kMostRegistered) unregister_idle();
        NV_ENC_REGISTER_RESOURCE reg{};
        reg.version = NV_ENC_REGISTER_RESOURCE_VER;
        reg.resourceType = NV_ENC_INPUT_RESOURCE_TYPE_CUDADEVICEPTR;
        // The pool's size, as FFmpeg lays the planes out (chroma after
        // that many rows), which may exceed the picture encoded.
        reg.width = static_cast<std::uint32_t>(frames->width);
        reg.height = static_cast<std::uint32_t>(frames->height);
        reg.pitch = pitch;
        reg.resourceToRegister = const_cast<void*>(buffer);
        reg.bufferFormat = format;
        reg.bufferUsage = NV_ENC_INPUT_IMAGE;
        check(lib_.api.nvEncRegisterResource(encoder_, &reg), "registering a GPU frame");
        it = registered_.emplace(buffer, reg.registeredResource).first;
    }
    NV_ENC_MAP_INPUT_RESOURCE map{};
    map.version = NV_ENC_MAP_INPUT_RESOURCE_VER;
    map.registeredResource = it->second;
    check(lib_.api.nvEncMapInputResource(encoder_, &map), "mapping a GPU frame");
    return map.mappedResource;
}

// The oldest picture's bitstream (the lock waits for its encode), then its
// frame unmapped and given back. It stays in flight until all of that went
// well: a session that fails here is torn down with it still mapped.
NvencPicture NvencSession::take_oldest() {
    const InFlight& f = in_flight_.front();
    NV_ENC_LOCK_BITSTREAM lock{};
    lock.version = NV_ENC_LOCK_BITSTREAM_VER;
    lock.outputBitstream = bitstreams_[f.buffer];
    check(lib_.api.nvEncLockBitstream(encoder_, &lock), "locking a bitstream");
    NvencPicture out;
    const auto* bytes = static_cast<const std::uint8_t*>(lock.bitstreamBufferPtr);
    out.bytes.assign(bytes, bytes + lock.bitstreamSizeInBytes);
    out.pts = f.pts;
    out.key = lock.pictureType == NV_ENC_PIC_TYPE_IDR;
    check(lib_.api.nvEncUnlockBitstream(encoder_, bitstreams_[f.buffer]), "unlocking a bitstream");
    if (f.mapped) check(lib_.api.nvEncUnmapInputResource(encoder_, f.mapped), "unmapping a frame");
    in_flight_.pop_front();
    return out;
}

std::vector<std::uint8_t> NvencSession::sequence_header() {
    const Current current(lib_, context_);
    std::vector<std::uint8_t> header(1024);
    std::uint32_t size = 0;
    NV_ENC_SEQUENCE_PARAM_PAYLOAD p{};
    p.version = NV_ENC_SEQUENCE_PARAM_PAYLOAD_VER;
    p.inBufferSize = static_cast<std::uint32_t>(header.size());
    p.spsppsBuffer = header.data();
    p.outSPSPPSPayloadSize = &size;
    check(lib_.api.nvEncGetSequenceParams(encoder_, &p), "reading its sequence header");
    header.resize(size);
    return header;
}

void NvencSession::end_of_stream() {
    if (!in_flight_.empty())
        throw RunError(fmt::format("{}: the end of stream sent with {} pictures not taken", label_, in_flight_.size()));
    const Current current(lib_, context_);
    NV_ENC_PIC_PARAMS pic{};
    pic.version = NV_ENC_PIC_PARAMS_VER;
    pic.encodePicFlags = NV_ENC_PIC_FLAG_EOS;
    ended_ = true;
    check(lib_.api.nvEncEncodePicture(encoder_, &pic), "ending the stream");
}

// Registrations of buffers no picture in flight reads (never one mapped).
void NvencSession::unregister_idle() {
    for (auto it = registered_.begin(); it != registered_.end();) {
        const bool read = std::any_of(in_flight_.begin(), in_flight_.end(), [&](const InFlight& f) {
            return f.frame && static_cast<const void*>(f.frame->data[0]) == it->first;
        });
        if (read) {
            ++it;
            continue;
        }
        lib_.api.nvEncUnregisterResource(encoder_, it->second);
        it = registered_.erase(it);
    }
}

void NvencSession::check(NVENCSTATUS status, const char* what) const {
    if (status == NV_ENC_SUCCESS) return;
    const char* detail = encoder_ ? lib_.api.nvEncGetLastErrorString(encoder_) : nullptr;
    throw RunError(fmt::format("{}: NVENC failed {}: status {}{}{}", label_, what, static_cast<int>(status),
                               detail && *detail ? ": " : "", detail ? detail : ""));
}

}  // namespace ladder::engine
