#include "mux/webvtt_document.hpp"

#include <stdexcept>

#include "av/av_error.hpp"
#include "av/compat.hpp"
#include "av/handles.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace ladder::mux {

namespace {

int append(void* opaque, av::AvioWriteBuffer buf, int size) {
    static_cast<std::string*>(opaque)->append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(size));
    return size;
}

}  // namespace

std::string render_webvtt(const std::vector<WebVttCue>& cues, bool hls_timestamp_map) {
    std::string text;
    AVFormatContext* raw = nullptr;
    av::check(avformat_alloc_output_context2(&raw, nullptr, "webvtt", nullptr), "creating the WebVTT muxer");
    av::OutputFormatPtr ctx(raw);
    constexpr int io_buffer_size = 4096;
    auto* buffer = static_cast<unsigned char*>(av_malloc(io_buffer_size));
    if (!buffer) throw std::bad_alloc();
    av::AvioContextPtr io(avio_alloc_context(buffer, io_buffer_size, 1, &text, nullptr, &append, nullptr));
    if (!io) {
        av_free(buffer);
        throw std::bad_alloc();
    }
    ctx->flags |= AVFMT_FLAG_CUSTOM_IO;
    ctx->pb = io.get();
    AVStream* st = avformat_new_stream(ctx.get(), nullptr);
    if (!st) throw std::bad_alloc();
    st->codecpar->codec_type = AVMEDIA_TYPE_SUBTITLE;
    st->codecpar->codec_id = AV_CODEC_ID_WEBVTT;
    st->time_base = AVRational{1, 1000};
    av::check(avformat_write_header(ctx.get(), nullptr), "writing the WebVTT header");
    av::PacketPtr pkt = av::make_packet();
    for (const auto& cue : cues) {
        av::check(av_new_packet(pkt.get(), static_cast<int>(cue.text.size())), "allocating a WebVTT cue");
        std::copy(cue.text.begin(), cue.text.end(), pkt->data);
        pkt->pts = pkt->dts = av_rescale_q(cue.start_ms, AVRational{1, 1000}, st->time_base);
        pkt->duration = av_rescale_q(cue.end_ms - cue.start_ms, AVRational{1, 1000}, st->time_base);
        av::check(av_write_frame(ctx.get(), pkt.get()), "writing a WebVTT cue");
        av_packet_unref(pkt.get());
    }
    av::check(av_write_trailer(ctx.get()), "finishing WebVTT");
    avio_flush(io.get());
    ctx.reset();  // before io: the context never closes a custom pb
    if (hls_timestamp_map) {
        const std::size_t header_end = text.find('\n');
        text.insert(header_end == std::string::npos ? text.size() : header_end + 1,
                    "X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n");
    }
    return text;
}

std::vector<WebVttCue> cues_between(const std::vector<WebVttCue>& cues, std::int64_t start_ms, std::int64_t end_ms) {
    std::vector<WebVttCue> out;
    for (const auto& c : cues)
        if (c.start_ms < end_ms && c.end_ms > start_ms) out.push_back(c);
    return out;
}

}  // namespace ladder::mux
