#pragma once
// RAII owners for every FFmpeg object the project touches. Nothing outside av/
// calls a *_free function by hand.
#include <memory>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavfilter/avfilter.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

namespace ladder::av {

struct FrameDeleter {
    void operator()(AVFrame* f) const noexcept { av_frame_free(&f); }
};
struct PacketDeleter {
    void operator()(AVPacket* p) const noexcept { av_packet_free(&p); }
};
struct CodecContextDeleter {
    // Serialized for codecs with unsafe global teardown (av/codec_lifecycle.hpp).
    void operator()(AVCodecContext* c) const noexcept;
};
struct InputFormatDeleter {
    void operator()(AVFormatContext* c) const noexcept { avformat_close_input(&c); }
};
struct OutputFormatDeleter {
    // Closes pb only when it is a file libavformat opened (avio_open). A
    // custom AVIOContext (AVFMT_FLAG_CUSTOM_IO) is never closed here:
    // avio_close would take its opaque (the caller's object) for a
    // URLContext and crash. Its owner frees it (AvioContextPtr), after this
    // context. avformat_free_context itself never touches pb.
    void operator()(AVFormatContext* c) const noexcept {
        if (c && c->pb && !(c->flags & AVFMT_FLAG_CUSTOM_IO) && !(c->oformat->flags & AVFMT_NOFILE))
            avio_closep(&c->pb);
        avformat_free_context(c);
    }
};
struct CodecParametersDeleter {
    void operator()(AVCodecParameters* p) const noexcept { avcodec_parameters_free(&p); }
};
struct AvioContextDeleter {
    void operator()(AVIOContext* io) const noexcept {
        if (io) av_freep(&io->buffer);
        avio_context_free(&io);
    }
};
struct BsfDeleter {
    void operator()(AVBSFContext* b) const noexcept { av_bsf_free(&b); }
};
struct SwsDeleter {
    void operator()(SwsContext* s) const noexcept { sws_freeContext(s); }
};
struct FilterGraphDeleter {
    void operator()(AVFilterGraph* g) const noexcept { avfilter_graph_free(&g); }
};
struct BufferRefDeleter {
    void operator()(AVBufferRef* b) const noexcept { av_buffer_unref(&b); }
};
struct FilterInOutDeleter {
    void operator()(AVFilterInOut* io) const noexcept { avfilter_inout_free(&io); }
};
struct DictionaryDeleter {
    void operator()(AVDictionary* d) const noexcept { av_dict_free(&d); }
};

using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;
using CodecContextPtr = std::unique_ptr<AVCodecContext, CodecContextDeleter>;
using InputFormatPtr = std::unique_ptr<AVFormatContext, InputFormatDeleter>;
using OutputFormatPtr = std::unique_ptr<AVFormatContext, OutputFormatDeleter>;
using CodecParametersPtr = std::unique_ptr<AVCodecParameters, CodecParametersDeleter>;
using AvioContextPtr = std::unique_ptr<AVIOContext, AvioContextDeleter>;
using BsfPtr = std::unique_ptr<AVBSFContext, BsfDeleter>;
using SwsPtr = std::unique_ptr<SwsContext, SwsDeleter>;
using FilterGraphPtr = std::unique_ptr<AVFilterGraph, FilterGraphDeleter>;
using BufferRefPtr = std::unique_ptr<AVBufferRef, BufferRefDeleter>;
using FilterInOutPtr = std::unique_ptr<AVFilterInOut, FilterInOutDeleter>;
using DictionaryPtr = std::unique_ptr<AVDictionary, DictionaryDeleter>;

// A subtitle event avcodec_decode_subtitle2 filled in; its rects are freed with it.
struct DecodedSubtitle {
    AVSubtitle value{};
    DecodedSubtitle() = default;
    ~DecodedSubtitle() { avsubtitle_free(&value); }
    DecodedSubtitle(const DecodedSubtitle&) = delete;
    DecodedSubtitle& operator=(const DecodedSubtitle&) = delete;
};

// Allocation helpers throw std::bad_alloc instead of returning null.
FramePtr make_frame();
PacketPtr make_packet();
// A new AVFrame referencing the same (refcounted) buffers: no pixel copy.
FramePtr ref_frame(const AVFrame* src);
PacketPtr ref_packet(const AVPacket* src);
CodecContextPtr make_codec_context(const AVCodec* codec);
CodecParametersPtr make_codec_parameters();
// A new reference to a refcounted buffer (hw device/frames contexts); null stays null.
BufferRefPtr ref_buffer(const AVBufferRef* src);

}  // namespace ladder::av
