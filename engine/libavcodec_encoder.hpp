#pragma once
// A libavcodec AV1 encoder for one chunk: libsvtav1 and libaom-av1 on the
// CPU, av1_nvenc (NVIDIA) and av1_qsv (Intel) on the slot's GPU. A fresh
// encoder per chunk, so the chunk starts with a key frame carrying a
// sequence header and decodes on its own. This is the code that runs inside
// an encoder process (engine/encoder_process_main.*) for CPU slots, and in
// ladder's own process for GPU slots and with --isolation none.
#include <functional>

#include "engine/encoder_backend.hpp"

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
    // Each packet as the encoder returns it (an encoder process forwards it
    // at once, which is how its parent sees that it is alive). May be empty.
    std::function<void(const AVPacket&)> on_packet;
};

class LibavcodecEncoder final : public EncoderBackend {
public:
    LibavcodecEncoder(gpu::EncoderSlot slot, EncoderSettings settings);

    EncodedChunk encode(const RawChunk& chunk, std::stop_token stop) override;
    void probe() override;
    // Encodes frames that arrive one by one; packets have pts in frames
    // since the start of the rung. Throws RunError (or Cancelled).
    EncodedChunk encode_frames(const ChunkFrames& frames, std::stop_token stop);

private:
    av::CodecContextPtr open(int frames, const AVFrame* first) const;
    AVPixelFormat input_format(const AVFrame* first) const;
    void attach_device(AVCodecContext* ctx) const;
    void convert(const AVFrame* src, const AVCodecContext* ctx, AVFrame* dst) const;
    void drain(AVCodecContext* ctx, const ChunkFrames& frames, EncodedChunk& out, std::stop_token stop) const;
    EncodedChunk encode_with(AVCodecContext* ctx, av::FramePtr first, const ChunkFrames& frames,
                             std::stop_token stop) const;

    gpu::EncoderSlot slot_;
    EncoderSettings settings_;
    const AVCodec* codec_ = nullptr;
    mutable av::SwsPtr sws_;  // only for encoders that need another pixel layout
};

}  // namespace ladder::engine
