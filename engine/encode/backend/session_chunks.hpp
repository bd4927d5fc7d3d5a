#pragma once
// The chunks of one encoder session, told apart by their packets. A session
// encodes consecutive chunks of a rung in one encoder (a key frame forced at
// every chunk start), so its packets come out as one stream; each packet's
// pts (the frame number in the rung) says which chunk it belongs to. A
// chunk is complete once it has one packet per frame (AV1: one temporal
// unit per shown frame); then it is checked — first packet a key frame with
// a sequence header — and given its own stream parameters, with av1C taken
// from that key frame, exactly like a chunk encoded alone.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "engine/base/chunk.hpp"

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

}  // namespace ladder::engine
