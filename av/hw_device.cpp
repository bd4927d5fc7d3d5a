#include "av/hw_device.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "av/av_error.hpp"

namespace ladder::av {

namespace {

struct DeviceCache {
    std::mutex mu;
    std::map<std::pair<int, std::string>, BufferRefPtr> devices;
};

DeviceCache& cache() {
    static DeviceCache c;
    return c;
}

const AVCodec* native_decoder(AVCodecID codec) {
    // libdav1d is registered before the native AV1 decoder and has no hwaccel.
    if (codec == AV_CODEC_ID_AV1) return avcodec_find_decoder_by_name("av1");
    return avcodec_find_decoder(codec);
}

bool codec_has_hw_config(const AVCodec* codec, AVHWDeviceType type, AVPixelFormat* format) {
    if (!codec) return false;
    for (int i = 0;; ++i) {
        const AVCodecHWConfig* cfg = avcodec_get_hw_config(codec, i);
        if (!cfg) return false;
        if (cfg->device_type == type && (cfg->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX)) {
            if (format) *format = cfg->pix_fmt;
            return true;
        }
    }
}

AVPixelFormat pick_hw_format(AVCodecContext* ctx, const AVPixelFormat* offered) {
    const auto wanted = static_cast<AVPixelFormat>(reinterpret_cast<std::intptr_t>(ctx->opaque));
    for (const AVPixelFormat* p = offered; *p != AV_PIX_FMT_NONE; ++p)
        if (*p == wanted) return *p;
    // The hwaccel cannot take this stream: the first offered format is the
    // software one libavcodec would have chosen.
    return offered[0];
}

}  // namespace

BufferRefPtr shared_hw_device(AVHWDeviceType type, const std::string& device) {
    DeviceCache& c = cache();
    std::lock_guard lock(c.mu);
    auto& slot = c.devices[{static_cast<int>(type), device}];
    if (!slot) {
        AVBufferRef* raw = nullptr;
        AVDictionary* opts = nullptr;
        const char* name = device.empty() ? nullptr : device.c_str();
        // The GPU's primary context, which the device probe made and kept
        // (gpu/nvidia_codec_probe.cpp): one context per GPU, made once.
        if (type == AV_HWDEVICE_TYPE_CUDA) av_dict_set(&opts, "primary_ctx", "1", 0);
        if (type == AV_HWDEVICE_TYPE_QSV && !device.empty()) {
            // QSV sits on a VA-API child device: the render node picks the GPU.
            av_dict_set(&opts, "child_device", device.c_str(), 0);
            name = "hw";
        }
        const int ret = av_hwdevice_ctx_create(&raw, type, name, opts, 0);
        av_dict_free(&opts);
        check(ret, fmt::format("creating a {} device context on '{}'", av_hwdevice_get_type_name(type), device));
        slot.reset(raw);
    }
    return ref_buffer(slot.get());
}

FramePtr GpuFrameCopier::copy(const AVFrame* src) {
    if (!frames_ || src->width != width_ || src->height != height_) {
        const auto* src_frames = reinterpret_cast<const AVHWFramesContext*>(src->hw_frames_ctx->data);
        BufferRefPtr frames(av_hwframe_ctx_alloc(src_frames->device_ref));
        if (!frames) throw std::bad_alloc();
        auto* fc = reinterpret_cast<AVHWFramesContext*>(frames->data);
        fc->format = src_frames->format;
        fc->sw_format = src_frames->sw_format;
        fc->width = src->width;
        fc->height = src->height;
        check(av_hwframe_ctx_init(frames.get()), "creating a GPU frame pool");
        frames_ = std::move(frames);
        width_ = src->width;
        height_ = src->height;
    }
    FramePtr dst = make_frame();
    check(av_hwframe_get_buffer(frames_.get(), dst.get(), 0), "taking a frame from the GPU frame pool");
    dst->width = src->width;
    dst->height = src->height;
    check(av_hwframe_transfer_data(dst.get(), src, 0), "copying a decoded frame on the GPU");
    check(av_frame_copy_props(dst.get(), src), "copying frame properties");
    return dst;
}

FramePtr copy_to_gpu_pool(const AVFrame* src, AVBufferRef* pool) {
    FramePtr host = make_frame();
    check(av_hwframe_transfer_data(host.get(), src, 0), "copying a GPU frame to host memory");
    FramePtr dst = make_frame();
    check(av_hwframe_get_buffer(pool, dst.get(), 0), "taking a frame from the GPU frame pool");
    dst->width = src->width;
    dst->height = src->height;
    check(av_hwframe_transfer_data(dst.get(), host.get(), 0), "copying a frame to another GPU");
    check(av_frame_copy_props(dst.get(), src), "copying frame properties");
    return dst;
}

const void* frame_device(const AVFrame* frame) {
    if (!frame->hw_frames_ctx) return nullptr;
    return reinterpret_cast<const AVHWFramesContext*>(frame->hw_frames_ctx->data)->device_ctx;
}

bool has_hw_decoder(AVCodecID codec, AVHWDeviceType type) {
    return codec_has_hw_config(native_decoder(codec), type, nullptr);
}

CodecContextPtr open_hw_decoder(const AVStream* stream, AVBufferRef* device, AVPixelFormat hw_format) {
    const AVCodec* codec = native_decoder(stream->codecpar->codec_id);
    if (!codec)
        throw AvError(AVERROR_DECODER_NOT_FOUND,
                      fmt::format("no native decoder for codec '{}'", avcodec_get_name(stream->codecpar->codec_id)));
    CodecContextPtr ctx = make_codec_context(codec);
    check(avcodec_parameters_to_context(ctx.get(), stream->codecpar), "copying stream parameters");
    ctx->pkt_timebase = stream->time_base;
    ctx->hw_device_ctx = av_buffer_ref(device);
    if (!ctx->hw_device_ctx) throw std::bad_alloc();
    ctx->opaque = reinterpret_cast<void*>(static_cast<std::intptr_t>(hw_format));
    ctx->get_format = pick_hw_format;
    // The GPU decodes; CPU threads would only add frame delay.
    ctx->thread_count = 1;
    check(avcodec_open2(ctx.get(), codec, nullptr), fmt::format("opening decoder {} with a hardware device", codec->name));
    return ctx;
}

}  // namespace ladder::av
