#pragma once
// NVENC driven by ladder itself (--nvenc-client ladder, the default): a
// SessionEncoder over one NvencSession (nvenc_session.*), so the
// SessionDriver's protocol (chunks, packets checked and split) is the same
// as for libavcodec's encoders. A session opens on the slot's GPU with the
// rung's first chunk, stays open across the rung's chunks (a forced key
// frame with a sequence header at each chunk start; the slot keeps it
// between its sessions, engine/encode/idle_encoders.*) and hands each
// chunk's pictures back by its last frame. Nothing of FFmpeg's encoder is involved,
// so opens run in parallel on every GPU, and Debian 12's FFmpeg 5.1, which
// has no av1_nvenc, encodes AV1 on NVIDIA GPUs too.
#include <memory>

#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/encode/backend/nvenc_session.hpp"
#include "engine/encode/backend/session_driver.hpp"

namespace ladder::engine {

class NvencEncoder final : public SessionEncoder {
public:
    NvencEncoder(gpu::EncoderSlot slot, EncoderSettings settings);
    ~NvencEncoder() override;
    NvencEncoder(const NvencEncoder&) = delete;
    NvencEncoder& operator=(const NvencEncoder&) = delete;

    void open(const ChunkHeader& chunk, const AVFrame& first) override;
    void next_chunk(const ChunkHeader& chunk, bool anywhere) override;
    // Sends the frame: its packet goes to sink a few frames later, and by
    // the time the chunk's last frame is sent.
    void send(av::FramePtr frame, bool chunk_start, const PacketSink& sink, std::stop_token stop) override;
    void drain(const PacketSink& sink, std::stop_token stop) override;
    void flush(const PacketSink& sink, std::stop_token stop) override;
    void close() override;
    void abandon() override;
    bool is_open() const override { return session_ != nullptr && !ahead_; }
    const AVCodecParameters* stream() const override { return stream_.get(); }
    void probe() override;
    bool open_ahead() override;

private:
    std::unique_ptr<NvencSession> open_session(const AVFrame* first);
    bool fits(const AVFrame& first) const;  // the session opened ahead can take this first frame
    NvencSessionSettings session_settings(const AVFrame* first) const;
    av::CodecParametersPtr stream_parameters(const std::vector<std::uint8_t>& sequence_header) const;
    av::PacketPtr packet(const NvencPicture& picture) const;

    gpu::EncoderSlot slot_;
    const gpu::EncoderTraits& traits_;
    EncoderSettings settings_;
    // HDR10 metadata OBUs put before each key frame's picture (empty for SDR).
    std::vector<std::uint8_t> hdr_obus_;
    av::BufferRefPtr device_;  // the GPU's CUDA device context, while a session is open
    std::unique_ptr<NvencSession> session_;
    av::CodecParametersPtr stream_;
    bool ten_bit_ = false;
    std::int64_t next_frame_ = 0;  // the frame number the next frame gets
    int chunk_frames_left_ = 0;    // frames of the chunk not sent yet
    bool flushed_ = false;
    bool ahead_ = false;  // session_ was opened ahead and has had no chunk yet
};

}  // namespace ladder::engine
