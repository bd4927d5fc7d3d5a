#pragma once
// One driver for every encoder session: the session protocol (chunks
// announced and sent frame by frame, packets split back into chunks by pts
// and each checked — one packet per frame, key frame and sequence header
// first — and given its own av1C, the rest taken after the flush, a GPU
// session that goes on anywhere in its rung) lives here once, over a narrow
// interface that each encoder implements: the libavcodec encoder in this
// process (engine/encode/backend/libavcodec_encoder.*) and the one in a
// slot's encoder process (engine/encode/process/process_encoder.*). As in
// NVIDIA's NvEncoder sample, the driver owns the protocol and asks the
// encoder's record (gpu/encoder_traits.hpp) what the encoder does.
//
// SessionChunks: the chunks of one encoder session, told apart by their packets. A session
// encodes consecutive chunks of a rung in one encoder (a key frame forced at
// every chunk start), so its packets come out as one stream; each packet's
// pts (the frame number in the rung) says which chunk it belongs to. A
// chunk is complete once it has one packet per frame (AV1: one temporal
// unit per shown frame); then it is checked — first packet a key frame with
// a sequence header — and given its own stream parameters, with av1C taken
// from that key frame, exactly like a chunk encoded alone.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "engine/base/chunk.hpp"
#include "engine/encode/backend/encoder_backend.hpp"

namespace ladder::engine {

class SessionChunks {
public:
    SessionChunks(std::string encoder, std::string slot_label);

    // The next chunk sent to the encoder: frames [first_frame, first_frame + frames).
    void expect(int rung, int index, std::int64_t first_frame, std::int64_t frames);
    // A packet from the encoder, pts in frames since the start of the rung.
    // Throws RunError for a packet outside every chunk sent, or out of order.
    void add(av::PacketPtr packet);
    // The complete chunks at the front, in order, checked; `stream` is the
    // encoder's stream parameters (their extradata is replaced per chunk).
    std::vector<EncodedChunk> take_complete(const AVCodecParameters& stream);
    // After the encoder was flushed: every chunk left, which must be
    // complete (RunError otherwise).
    std::vector<EncodedChunk> take_rest(const AVCodecParameters& stream);

    bool empty() const { return chunks_.empty(); }
    // A new session starts (after take_rest() or a failure).
    void reset();

private:
    EncodedChunk finish(EncodedChunk chunk, const AVCodecParameters& stream) const;

    std::string encoder_;
    std::string slot_label_;
    std::deque<EncodedChunk> chunks_;  // sent, not yet taken
    std::int64_t last_pts_ = -1;
};

// Each packet as the encoder returns it, pts in frames since the start of
// the rung (an encoder process forwards it at once, which is how its parent
// sees that it is alive).
using PacketSink = std::function<void(av::PacketPtr)>;

// A chunk of a session as its encoder is told of it, before its frames.
struct ChunkHeader {
    int rung = 0;
    int index = 0;
    std::int64_t first_frame = 0;
    int frames = 0;
};

// The narrow interface under the driver: one encoder, one session at a time.
// Every call throws RunError (or Cancelled, EncoderOpenRefused,
// EncoderProcessFailure) on failure.
class SessionEncoder {
public:
    virtual ~SessionEncoder() = default;
    // Opens a session with its first chunk; `first` is that chunk's first
    // frame (its layout, and its GPU frames context for frames in GPU memory).
    virtual void open(const ChunkHeader& chunk, const AVFrame& first) = 0;
    // The open session's next chunk. `anywhere`: it need not follow the
    // last one (an encoder that forces key frames, every chunk sent back).
    virtual void next_chunk(const ChunkHeader& chunk, bool anywhere) = 0;
    // One frame of the current chunk, in order (chunk_start: its first).
    // Packets the encoder hands back while it waits to take it go to sink.
    virtual void send(av::FramePtr frame, bool chunk_start, const PacketSink& sink, std::stop_token stop) = 0;
    // The packets ready now, without waiting for more.
    virtual void drain(const PacketSink& sink, std::stop_token stop) = 0;
    // End of stream: every packet left goes to sink.
    virtual void flush(const PacketSink& sink, std::stop_token stop) = 0;
    // After the flush: the session is over; the next chunk opens another.
    virtual void close() = 0;
    // The session failed outside the encoder (its packets made no good
    // chunks): whatever the encoder holds of it goes.
    virtual void abandon() = 0;
    virtual bool is_open() const = 0;
    // The stream's parameters once the encoder said (nullptr before).
    virtual const AVCodecParameters* stream() const = 0;
    // Opens an encoder with the session's settings and closes it again.
    virtual void probe() = 0;
    // Opens the session from the settings alone, before its first chunk;
    // false where the encoder cannot. Until that chunk's open() the encoder
    // is not is_open(): open() then goes on in it, or opens another where the
    // chunk's frames need one (another bit depth, another CUDA context).
    virtual bool open_ahead() { return false; }
};

class SessionDriver final : public EncoderBackend {
public:
    // slot: the slot the encoder runs for (its label and encoder record).
    SessionDriver(std::unique_ptr<SessionEncoder> encoder, const gpu::EncoderSlot& slot);
    ~SessionDriver() override;
    SessionDriver(const SessionDriver&) = delete;
    SessionDriver& operator=(const SessionDriver&) = delete;

    EncodedChunk encode(const RawChunk& chunk, std::stop_token stop) override;
    std::vector<EncodedChunk> send(const RawChunk& chunk, std::stop_token stop) override;
    std::vector<EncodedChunk> finish(std::stop_token stop) override;
    void probe() override;
    bool open_ahead() override;

private:
    std::vector<EncodedChunk> send_chunk(const RawChunk& chunk, std::stop_token stop);
    // Runs a step; any failure abandons the session.
    template <typename Step>
    auto guarded(Step&& step) -> decltype(step());

    std::unique_ptr<SessionEncoder> encoder_;
    const gpu::EncoderTraits& traits_;
    std::string label_;
    SessionChunks chunks_;       // the session's chunks sent and not taken yet
    std::int64_t next_frame_ = 0;  // the frame after the last one sent
    PacketSink sink_;
};

}  // namespace ladder::engine
