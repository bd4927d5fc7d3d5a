#include "mux/webvtt_document.hpp"

#include <algorithm>
#include <array>
#include <regex>
#include <stdexcept>

#include "av/av_error.hpp"
#include "av/compat.hpp"
#include "av/handles.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace ladder::mux {

namespace {

// The character references FFmpeg's webvtt decoder reads back
// (libavcodec/webvttdec.c); browsers read these too.
constexpr std::array<std::string_view, 6> kCharacterReferences{"&amp;", "&lt;", "&gt;", "&lrm;", "&rlm;", "&nbsp;"};

bool starts_character_reference(std::string_view text) {
    return std::any_of(kCharacterReferences.begin(), kCharacterReferences.end(),
                       [&](std::string_view r) { return text.substr(0, r.size()) == r; });
}

// A tag of WebVTT cue text: a start tag (c, i, b, u, ruby, rt with classes;
// v and lang with classes and their annotation), an end tag, or a
// timestamp.
const std::regex& cue_tag() {
    static const std::regex re(R"(<(?:/(?:c|i|b|u|ruby|rt|v|lang))"         // end tag
                               R"(|(?:c|i|b|u|ruby|rt)(?:\.[^\s.&<>]+)*)"    // start tag
                               R"(|(?:v|lang)(?:\.[^\s.&<>]+)*[ \t][^\r\n&<>]+)"  // with annotation
                               R"(|(?:[0-9]{2,}:)?[0-5][0-9]:[0-5][0-9]\.[0-9]{3})>)");  // timestamp
    return re;
}

// The length of the cue tag at text's start, 0 when it starts none.
std::size_t cue_tag_length(std::string_view text) {
    const std::size_t close = text.find('>');
    if (close == std::string_view::npos) return 0;
    const std::string candidate(text.substr(0, close + 1));
    return std::regex_match(candidate, cue_tag()) ? candidate.size() : 0;
}

std::string escaped_line(std::string_view line) {
    std::string out;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const std::string_view rest = line.substr(i);
        if (line[i] == '<') {
            if (const std::size_t tag = cue_tag_length(rest)) {
                out += rest.substr(0, tag);
                i += tag - 1;
            } else {
                out += "&lt;";
            }
        } else if (line[i] == '&') {
            out += starts_character_reference(rest) ? "&" : "&amp;";
        } else if (line[i] == '>') {
            out += "&gt;";
        } else {
            out += line[i];
        }
    }
    return out;
}

// CRLF, CR and LF all end a WebVTT line.
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find_first_of("\r\n", start);
        out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) return out;
        start = end + (text.substr(end, 2) == "\r\n" ? 2 : 1);
    }
}

bool blank(std::string_view line) { return line.find_first_not_of(" \t\f") == std::string_view::npos; }

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

std::string webvtt_cue_payload(std::string_view text) {
    std::vector<std::string_view> lines = lines_of(text);
    const auto first = std::find_if_not(lines.begin(), lines.end(), blank);
    const auto last = std::find_if_not(lines.rbegin(), lines.rend(), blank).base();
    std::string out;
    for (auto line = first; line < last; ++line) {
        if (!out.empty()) out += '\n';
        out += blank(*line) ? "&nbsp;" : escaped_line(*line);
    }
    return out;
}

std::vector<WebVttCue> cues_between(const std::vector<WebVttCue>& cues, std::int64_t start_ms, std::int64_t end_ms) {
    std::vector<WebVttCue> out;
    for (const auto& c : cues)
        if (c.start_ms < end_ms && c.end_ms > start_ms) out.push_back(c);
    return out;
}

}  // namespace ladder::mux
