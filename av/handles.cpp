#include "av/handles.hpp"

#include <new>

#include "av/av_error.hpp"
#include "av/codec_lifecycle.hpp"

namespace ladder::av {

void CodecContextDeleter::operator()(AVCodecContext* c) const noexcept {
    const auto lock = lock_codec_lifecycle(c ? c->codec : nullptr);
    avcodec_free_context(&c);
}

FramePtr make_frame() {
    FramePtr f(av_frame_alloc());
    if (!f) throw std::bad_alloc();
    return f;
}

PacketPtr make_packet() {
    PacketPtr p(av_packet_alloc());
    if (!p) throw std::bad_alloc();
    return p;
}

FramePtr ref_frame(const AVFrame* src) {
    FramePtr f = make_frame();
    check(av_frame_ref(f.get(), src), "referencing a frame");
    return f;
}

PacketPtr ref_packet(const AVPacket* src) {
    PacketPtr p = make_packet();
    check(av_packet_ref(p.get(), src), "referencing a packet");
    return p;
}

CodecContextPtr make_codec_context(const AVCodec* codec) {
    CodecContextPtr c(avcodec_alloc_context3(codec));
    if (!c) throw std::bad_alloc();
    return c;
}

CodecParametersPtr make_codec_parameters() {
    CodecParametersPtr p(avcodec_parameters_alloc());
    if (!p) throw std::bad_alloc();
    return p;
}

BufferRefPtr ref_buffer(const AVBufferRef* src) {
    if (!src) return nullptr;
    BufferRefPtr b(av_buffer_ref(src));
    if (!b) throw std::bad_alloc();
    return b;
}

}  // namespace ladder::av
