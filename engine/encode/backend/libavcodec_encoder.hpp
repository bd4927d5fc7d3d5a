#pragma once
// A libavcodec AV1 encoder session: libsvtav1 and libaom-av1 on the CPU,
// av1_nvenc (NVIDIA) and av1_qsv (Intel) on the slot's GPU. One encoder
// takes consecutive chunks of a rung (a GPU encoder with nothing in flight
// also takes any later or earlier chunk of it); every chunk starts with a key frame
// carrying a sequence header (a GOP of one chunk, and the key frame forced
// where the encoder takes that), so it decodes on its own. This is the code
// that runs inside an encoder process (engine/encode/process/encoder_process_main.*) for
// CPU slots, and in ladder's own process for GPU slots and with
// --isolation none. In ladder's process a SessionDriver drives it
// (make_encoder_backend); in an encoder process, the process's loop (feed,
// flush).
#include <functional>

#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/encode/backend/session_driver.hpp"

namespace ladder::engine {

// One chunk's frames as they arrive: an encoder process receives them one
// at a time over its socket, so the encoder never needs the whole chunk.
struct ChunkFrames {
    int rung = 0;
    int index = 0;
    std::int64_t first_frame = 0;
    int count = 0;
    // The next frame, in order; called exactly `count` times.
    std::function<av::FramePtr()> next;
};

class LibavcodecEncoder final : public SessionEncoder {
public:
    LibavcodecEncoder(gpu::EncoderSlot slot, EncoderSettings settings);
    ~LibavcodecEncoder() override;
    LibavcodecEncoder(const LibavcodecEncoder&) = delete;
    LibavcodecEncoder& operator=(const LibavcodecEncoder&) = delete;

    // SessionEncoder.
    void open(const ChunkHeader& chunk, const AVFrame& first) override;
    void next_chunk(const ChunkHeader& chunk, bool anywhere) override;
    void send(av::FramePtr frame, bool chunk_start, const PacketSink& sink, std::stop_token stop) override;
    void drain(const PacketSink& sink, std::stop_token stop) override;
    // Flushes the encoder: the rest of the packets come out.
    void flush(const PacketSink& sink, std::stop_token stop) override;
    void close() override;
    void abandon() override;
    bool is_open() const override { return ctx_ != nullptr; }
    const AVCodecParameters* stream() const override { return stream_.get(); }
    void probe() override;

    // The stream underneath, for an encoder process: frames of the
    // session's next chunk go in (the encoder opens on the first), packets
    // come out through sink. Throws RunError (or Cancelled).
    void feed(const ChunkFrames& frames, const PacketSink& sink, std::stop_token stop);
    // The stream parameters, once open (nullptr before).
    const AVCodecParameters* stream_parameters() const { return stream_.get(); }

private:
    av::CodecContextPtr open_codec(int gop, const AVFrame* first) const;
    void describe_picture(AVCodecContext* ctx, const AVFrame* first) const;
    AVDictionary* family_options(AVCodecContext* ctx, const RateControl& rc) const;
    AVPixelFormat input_format(const AVFrame* first) const;
    void attach_device(AVCodecContext* ctx) const;
    void convert(const AVFrame* src, const AVCodecContext* ctx, AVFrame* dst) const;
    void send_frame(AVFrame* frame, bool chunk_start);
    void receive_packets(const PacketSink& sink, std::stop_token stop);
    // Runs a step of the session; a stop frees (or abandons) the encoder,
    // a library error becomes a RunError naming the chunk.
    template <typename Step>
    void guarded(int chunk, Step&& step);

    gpu::EncoderSlot slot_;
    const gpu::EncoderTraits& traits_;  // the slot's encoder record
    EncoderSettings settings_;
    // HDR10 metadata OBUs for the key frames of encoders that write none
    // themselves (all but SVT-AV1, which gets svtav1-params); empty for SDR.
    std::vector<std::uint8_t> hdr_obus_;
    const AVCodec* codec_ = nullptr;
    mutable av::SwsPtr sws_;  // only for encoders that need another pixel layout
    av::CodecContextPtr ctx_;             // the session's encoder, once open
    av::CodecParametersPtr stream_;       // its parameters
    std::int64_t session_first_frame_ = 0;
    std::int64_t next_frame_ = 0;         // the frame number the next frame must have
    std::int64_t frames_sent_ = 0;        // to the open encoder
    int chunk_ = -1;                      // the chunk being sent, for errors
    bool flushed_ = false;
};

}  // namespace ladder::engine
