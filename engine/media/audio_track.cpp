#include "engine/media/audio_track.hpp"
#include "av/compat.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "av/av_error.hpp"
#include "av/input_file.hpp"
#include "engine/media/audio_selection.hpp"

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
}

namespace ladder::engine {

namespace {

std::string describe_layout(const AVChannelLayout& layout) {
    char buf[128] = {};
    av_channel_layout_describe(&layout, buf, sizeof buf);
    return buf;
}

}  // namespace

AudioTrack::AudioTrack(const AVStream* source, std::int64_t video_start, int channels)
    : source_tb_(source->time_base) {
    decoder_ = av::open_decoder(source, 1);
    start_in_source_tb_ = av_rescale_q(video_start, av::kTimeBaseQ, source_tb_);

    const int sample_rate = aac_sample_rate(decoder_->sample_rate);
    AVChannelLayout out_layout{};
    av_channel_layout_default(&out_layout, channels);  // 6: 5.1(back), a layout FFmpeg's AAC encoder takes

    const AVCodec* aac = avcodec_find_encoder_by_name("aac");
    if (!aac) throw av::AvError(AVERROR_ENCODER_NOT_FOUND, "this FFmpeg build has no AAC encoder");
    encoder_ = av::make_codec_context(aac);
    encoder_->sample_rate = sample_rate;
    encoder_->sample_fmt = AV_SAMPLE_FMT_FLTP;
    av::check(av_channel_layout_copy(&encoder_->ch_layout, &out_layout), "setting the AAC channel layout");
    // Apple's authoring specification: 32-160 kb/s stereo, 5.1 higher.
    encoder_->bit_rate = out_layout.nb_channels > 2 ? 384000 : out_layout.nb_channels == 2 ? 128000 : 64000;
    encoder_->time_base = AVRational{1, sample_rate};
    encoder_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    av::check(avcodec_open2(encoder_.get(), aac, nullptr), "opening the AAC encoder");
    time_base_ = encoder_->time_base;
    codecpar_ = av::make_codec_parameters();
    av::check(avcodec_parameters_from_context(codecpar_.get(), encoder_.get()), "reading AAC parameters");
    av_channel_layout_uninit(&out_layout);
}

void AudioTrack::make_filter(const AVFrame* first) {
    // Built from the first decoded frame: some decoders only know their
    // sample format and layout once they have decoded something.
    AVChannelLayout in_layout{};  // zeroed: av_channel_layout_copy frees what a custom layout points to
    if (first->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
        av_channel_layout_default(&in_layout, first->ch_layout.nb_channels);
    else
        av::check(av_channel_layout_copy(&in_layout, &first->ch_layout), "reading the source channel layout");
    const std::string src_args = fmt::format(
        "time_base=1/{}:sample_rate={}:sample_fmt={}:channel_layout={}", first->sample_rate, first->sample_rate,
        av_get_sample_fmt_name(static_cast<AVSampleFormat>(first->format)), describe_layout(in_layout));
    av_channel_layout_uninit(&in_layout);
    // async=1 + first_pts=0 trims audio that starts before the video and
    // pads a late start with silence; gaps are filled the same way.
    const std::string chain = fmt::format(
        "aresample=async=1:first_pts=0,aformat=sample_fmts=fltp:sample_rates={}:channel_layouts={}",
        encoder_->sample_rate, describe_layout(encoder_->ch_layout));
    filter_ = std::make_unique<av::FilterChain>(true, src_args, chain);
    filter_->set_audio_frame_size(encoder_->frame_size);
}

int AudioTrack::channels() const { return codecpar_->ch_layout.nb_channels; }

std::string AudioTrack::description() const {
    return fmt::format("AAC {} Hz {} ch {} kb/s", codecpar_->sample_rate, channels(), codecpar_->bit_rate / 1000);
}

void AudioTrack::feed(const AVPacket* pkt) { decode_and_encode(pkt); }

void AudioTrack::decode_and_encode(const AVPacket* pkt) {
    int ret = avcodec_send_packet(decoder_.get(), pkt);
    if (ret == AVERROR_INVALIDDATA) {
        ++dropped_packets_;  // a damaged audio packet: the filter pads the gap
        return;
    }
    if (ret == AVERROR_EOF) return;
    av::check(ret, "decoding audio");
    av::FramePtr frame = av::make_frame();
    for (;;) {
        ret = avcodec_receive_frame(decoder_.get(), frame.get());
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) break;
        if (ret == AVERROR_INVALIDDATA) {
            ++dropped_packets_;
            continue;
        }
        av::check(ret, "decoding audio");
        std::int64_t ts = frame->best_effort_timestamp;
        if (!filter_) make_filter(frame.get());
        if (ts != AV_NOPTS_VALUE)
            frame->pts = av_rescale_q(ts - start_in_source_tb_, source_tb_, AVRational{1, frame->sample_rate});
        for (auto& out : filter_->push(frame.get())) encode(out.get());
        av_frame_unref(frame.get());
    }
}

void AudioTrack::encode(AVFrame* frame) {
    if (frame && frame->pts != AV_NOPTS_VALUE) next_pts_ = frame->pts + frame->nb_samples;
    av::check(avcodec_send_frame(encoder_.get(), frame), "encoding AAC");
    for (;;) {
        av::PacketPtr pkt = av::make_packet();
        int ret = avcodec_receive_packet(encoder_.get(), pkt.get());
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) break;
        av::check(ret, "encoding AAC");
        {
            std::lock_guard lock(mu_);
            packets_.push_back(std::move(pkt));
        }
        cv_.notify_all();
    }
}

av::FramePtr AudioTrack::silent_frame(int samples, std::int64_t pts) const {
    av::FramePtr silence = av::make_frame();
    silence->format = encoder_->sample_fmt;
    silence->sample_rate = encoder_->sample_rate;
    av::check(av_channel_layout_copy(&silence->ch_layout, &encoder_->ch_layout), "setting the silence layout");
    silence->nb_samples = samples;
    av::check(av_frame_get_buffer(silence.get(), 0), "allocating silence");
    av::check(av_samples_set_silence(silence->extended_data, 0, samples, silence->ch_layout.nb_channels,
                                     encoder_->sample_fmt),
              "writing silence");
    silence->pts = pts;
    return silence;
}

void AudioTrack::pad_with_silence(std::int64_t until) {
    while (next_pts_ < until) {
        const auto samples = static_cast<int>(std::min<std::int64_t>(encoder_->frame_size, until - next_pts_));
        encode(silent_frame(samples, next_pts_).get());
    }
}

void AudioTrack::encode_last_filtered(AVFrame* last, std::int64_t until) {
    // The filter's last frame is short unless the audio happens to end on a
    // frame boundary. When silence follows it, it is not the encoder's last
    // frame, and only the last may be short (FFmpeg 6.1 and newer refuse
    // the rest, 5.1 encoded it as a whole frame, padding in the middle of
    // the track): it is filled up with the first of that silence.
    const std::int64_t wanted =
        last->pts == AV_NOPTS_VALUE ? 0 : std::min<std::int64_t>(encoder_->frame_size, until - last->pts);
    if (last->nb_samples >= wanted) {
        encode(last);
        return;
    }
    av::FramePtr whole = silent_frame(static_cast<int>(wanted), last->pts);
    av::check(av_samples_copy(whole->extended_data, last->extended_data, 0, 0, last->nb_samples,
                              whole->ch_layout.nb_channels, encoder_->sample_fmt),
              "copying the last audio samples");
    encode(whole.get());
}

void AudioTrack::finish(std::int64_t video_end) {
    decode_and_encode(nullptr);
    if (filter_) {
        std::vector<av::FramePtr> tail = filter_->push(nullptr);
        for (std::size_t i = 0; i < tail.size(); ++i) {
            if (i + 1 < tail.size() || video_end <= 0)
                encode(tail[i].get());
            else
                encode_last_filtered(tail[i].get(), video_end);
        }
    }
    // Only after some real audio: the encoder's frames then have a known start.
    if (video_end > 0 && next_pts_ != AV_NOPTS_VALUE) pad_with_silence(video_end);
    encode(nullptr);
    {
        std::lock_guard lock(mu_);
        finished_ = true;
    }
    cv_.notify_all();
}

void AudioTrack::abandon() {
    {
        std::lock_guard lock(mu_);
        finished_ = true;
    }
    cv_.notify_all();
}

std::optional<av::PacketPtr> AudioTrack::packet(std::size_t i, std::stop_token stop) {
    std::unique_lock lock(mu_);
    if (!cv_.wait(lock, stop, [&] { return i < packets_.size() || finished_; })) return std::nullopt;
    if (i >= packets_.size()) return std::nullopt;
    return av::ref_packet(packets_[i].get());
}

std::int64_t AudioTrack::packet_count() const {
    std::lock_guard lock(mu_);
    return static_cast<std::int64_t>(packets_.size());
}

}  // namespace ladder::engine
