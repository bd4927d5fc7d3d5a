#include "engine/source/subtitle_tracks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"
#include "engine/source/source_info.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace ladder::engine {

namespace {

// A text subtitle encoder fed the decoder's ASS events (its header too).
av::CodecContextPtr open_text_encoder(AVCodecID id, const AVCodecContext* decoder) {
    const AVCodec* codec = avcodec_find_encoder(id);
    if (!codec) throw av::AvError(AVERROR_ENCODER_NOT_FOUND, fmt::format("no {} encoder", avcodec_get_name(id)));
    av::CodecContextPtr enc = av::make_codec_context(codec);
    enc->time_base = AVRational{1, 1000};
    if (decoder->subtitle_header && decoder->subtitle_header_size > 0) {
        enc->subtitle_header = static_cast<std::uint8_t*>(av_mallocz(decoder->subtitle_header_size + 1));
        if (!enc->subtitle_header) throw std::bad_alloc();
        std::copy_n(decoder->subtitle_header, decoder->subtitle_header_size, enc->subtitle_header);
        enc->subtitle_header_size = decoder->subtitle_header_size;
    }
    av::check(avcodec_open2(enc.get(), codec, nullptr), fmt::format("opening the {} encoder", codec->name));
    return enc;
}

// The encoder's output for one decoded event; empty when it has no text.
std::string encode_text(AVCodecContext* enc, const AVSubtitle& sub) {
    std::array<std::uint8_t, 64 * 1024> buf{};
    const int n = avcodec_encode_subtitle(enc, buf.data(), static_cast<int>(buf.size()), &sub);
    if (n <= 0) return {};
    return std::string(reinterpret_cast<const char*>(buf.data()), static_cast<std::size_t>(n));
}

}  // namespace

struct SubtitleTracks::Track {
    int stream = -1;
    av::CodecContextPtr decoder;
    av::CodecContextPtr webvtt;
    av::CodecContextPtr mov_text;
    av::CodecParametersPtr mov_text_par;
    std::vector<mux::WebVttCue> cues;
    std::vector<av::PacketPtr> mov_text_packets;
};

SubtitleTracks::SubtitleTracks(const av::InputSpec& source, std::vector<SubtitleRenditionSpec> renditions,
                               std::int64_t video_start)
    : specs_(std::move(renditions)), input_(source), video_start_ms_(video_start / 1000) {
    AVFormatContext* ic = input_.get();
    for (unsigned i = 0; i < ic->nb_streams; ++i) ic->streams[i]->discard = AVDISCARD_ALL;
    for (const auto& spec : specs_) {
        auto t = std::make_unique<Track>();
        t->stream = spec.source_stream;
        AVStream* st = ic->streams[spec.source_stream];
        st->discard = AVDISCARD_DEFAULT;
        t->decoder = av::open_decoder(st, 1);
        t->webvtt = open_text_encoder(AV_CODEC_ID_WEBVTT, t->decoder.get());
        t->mov_text = open_text_encoder(AV_CODEC_ID_MOV_TEXT, t->decoder.get());
        t->mov_text_par = av::make_codec_parameters();
        av::check(avcodec_parameters_from_context(t->mov_text_par.get(), t->mov_text.get()),
                  "reading mov_text parameters");
        tracks_.push_back(std::move(t));
    }
}

SubtitleTracks::~SubtitleTracks() = default;

const AVCodecParameters* SubtitleTracks::mov_text_codecpar(std::size_t i) const {
    return tracks_.at(i)->mov_text_par.get();
}

void SubtitleTracks::decode(Track& track, AVPacket* pkt) {
    av::DecodedSubtitle decoded;
    AVSubtitle* sub = &decoded.value;
    int got = 0;
    // A damaged packet is left out: the other cues stand on their own.
    if (avcodec_decode_subtitle2(track.decoder.get(), sub, &got, pkt) < 0) return;
    if (!got || sub->pts == AV_NOPTS_VALUE) return;
    std::int64_t start = sub->pts / 1000 + sub->start_display_time - video_start_ms_;
    std::int64_t end = sub->pts / 1000 + sub->end_display_time - video_start_ms_;
    // An event with no end shows until the next one (or 5 s): as players do.
    if (sub->end_display_time == 0 || sub->end_display_time == UINT32_MAX) end = start + 5000;
    if (end <= 0 || end <= start) return;
    start = std::max<std::int64_t>(start, 0);
    std::string text = mux::webvtt_cue_payload(encode_text(track.webvtt.get(), *sub));
    if (text.empty()) return;
    track.cues.push_back({start, end, std::move(text)});
    const std::string sample = encode_text(track.mov_text.get(), *sub);
    if (sample.empty()) return;
    av::PacketPtr out = av::make_packet();
    av::check(av_new_packet(out.get(), static_cast<int>(sample.size())), "allocating a mov_text sample");
    std::copy(sample.begin(), sample.end(), out->data);
    out->pts = out->dts = start;
    out->duration = end - start;
    track.mov_text_packets.push_back(std::move(out));
}

void SubtitleTracks::read(std::stop_token stop) {
    av::PacketPtr pkt = av::make_packet();
    for (;;) {
        if (stop.stop_requested()) throw Cancelled();
        try {
            if (!read_or_cancel(input_, pkt.get())) break;
        } catch (const av::AvError&) {
            break;  // a cut or damaged file: the video says so
        }
        for (auto& t : tracks_)
            if (t->stream == pkt->stream_index) decode(*t, pkt.get());
        av_packet_unref(pkt.get());
    }
    for (auto& t : tracks_) {
        // Cues in time order; mov_text samples may not overlap.
        std::stable_sort(t->cues.begin(), t->cues.end(), [](const auto& a, const auto& b) { return a.start_ms < b.start_ms; });
        std::stable_sort(t->mov_text_packets.begin(), t->mov_text_packets.end(),
                         [](const auto& a, const auto& b) { return a->pts < b->pts; });
        for (std::size_t i = 0; i + 1 < t->mov_text_packets.size(); ++i) {
            AVPacket* p = t->mov_text_packets[i].get();
            p->duration = std::min(p->duration, t->mov_text_packets[i + 1]->pts - p->pts);
        }
    }
    {
        std::lock_guard lock(mu_);
        done_ = complete_ = true;
    }
    cv_.notify_all();
}

void SubtitleTracks::abandon() {
    {
        std::lock_guard lock(mu_);
        done_ = true;
    }
    cv_.notify_all();
}

bool SubtitleTracks::wait_done(std::stop_token stop) const {
    std::unique_lock lock(mu_);
    return cv_.wait(lock, stop, [&] { return done_; }) && complete_;
}

const std::vector<mux::WebVttCue>* SubtitleTracks::cues(std::size_t i, std::stop_token stop) const {
    return wait_done(stop) ? &tracks_.at(i)->cues : nullptr;
}

const std::vector<av::PacketPtr>* SubtitleTracks::mov_text(std::size_t i, std::stop_token stop) const {
    return wait_done(stop) ? &tracks_.at(i)->mov_text_packets : nullptr;
}

}  // namespace ladder::engine
