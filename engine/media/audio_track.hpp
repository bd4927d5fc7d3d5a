#pragma once
// The audio rendition: the source's audio decoded and encoded to AAC exactly
// once, kept as a shared list of packets that every rung's finalizer muxes
// (each holds its own cursor). Timestamps start at the first video frame, so
// audio and video line up in every output; the encoder's first packet (pts
// -1024, its priming) comes before it, for the outputs' edit lists to hide.
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "av/filter_chain.hpp"
#include "av/handles.hpp"

namespace ladder::engine {

class AudioTrack {
public:
    // video_start: the first video timestamp, in AV_TIME_BASE units; audio
    // before it is trimmed and a late start is padded with silence.
    // channels: the AAC's (1, 2 or 6: 5.1); the source is mixed to it.
    AudioTrack(const AVStream* source, std::int64_t video_start, int channels);
    AudioTrack(const AudioTrack&) = delete;
    AudioTrack& operator=(const AudioTrack&) = delete;

    // Producer side (the decode pump's thread).
    void feed(const AVPacket* pkt);
    // Flushes decoder, filter and encoder. video_end (time_base(), or
    // negative: unknown): audio that stops before the video's end is padded
    // with silence up to it, so every output lasts as long as its video.
    void finish(std::int64_t video_end = -1);
    void abandon();  // wakes consumers after a failure

    // Consumer side. Stream parameters are known from construction.
    const AVCodecParameters* codecpar() const { return codecpar_.get(); }
    AVRational time_base() const { return time_base_; }
    int channels() const;
    // A new reference to packet i; blocks until it exists; nullopt when the
    // track ended before it (or on stop).
    std::optional<av::PacketPtr> packet(std::size_t i, std::stop_token stop);
    std::int64_t packet_count() const;
    std::string description() const;

private:
    void decode_and_encode(const AVPacket* pkt);
    void encode(AVFrame* frame);
    void make_filter(const AVFrame* first);
    void pad_with_silence(std::int64_t until);
    void encode_last_filtered(AVFrame* last, std::int64_t until);
    av::FramePtr silent_frame(int samples, std::int64_t pts) const;

    av::CodecContextPtr decoder_;
    av::CodecContextPtr encoder_;
    std::unique_ptr<av::FilterChain> filter_;
    av::CodecParametersPtr codecpar_;
    AVRational source_tb_;
    AVRational time_base_;
    std::int64_t start_in_source_tb_ = 0;
    int dropped_packets_ = 0;
    std::int64_t next_pts_ = AV_NOPTS_VALUE;  // end of the audio sent to the encoder so far (time_base_)

    mutable std::mutex mu_;  // the track's own: guards what follows (its AAC packets); a leaf
    std::condition_variable_any cv_;
    std::vector<av::PacketPtr> packets_;
    bool finished_ = false;
};

}  // namespace ladder::engine
