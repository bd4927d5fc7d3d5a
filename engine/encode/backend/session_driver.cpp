#include "engine/encode/backend/session_driver.hpp"

#include <fmt/format.h>

#include "engine/base/errors.hpp"

namespace ladder::engine {

SessionDriver::SessionDriver(std::unique_ptr<SessionEncoder> encoder, const gpu::EncoderSlot& slot)
    : encoder_(std::move(encoder)),
      traits_(slot.traits()),
      label_(slot.label),
      chunks_(slot.encoder, slot.label),
      sink_([this](av::PacketPtr p) { chunks_.add(std::move(p)); }) {}

// A session left open (its chunks were refused, or its worker gave up) is
// the encoder's to end: it knows how (a flush, or its process killed).
SessionDriver::~SessionDriver() = default;

template <typename Step>
auto SessionDriver::guarded(Step&& step) -> decltype(step()) {
    try {
        return step();
    } catch (...) {
        chunks_.reset();
        encoder_->abandon();
        throw;
    }
}

EncodedChunk SessionDriver::encode(const RawChunk& chunk, std::stop_token stop) {
    if (encoder_->is_open()) throw RunError(fmt::format("{}: encode() on an encoder with a session open", label_));
    return encode_as_session(chunk, stop, label_);
}

std::vector<EncodedChunk> SessionDriver::send(const RawChunk& chunk, std::stop_token stop) {
    if (chunk.frames.empty()) throw RunError(fmt::format("chunk {} has no frames", chunk.index));
    return guarded([&] { return send_chunk(chunk, stop); });
}

std::vector<EncodedChunk> SessionDriver::send_chunk(const RawChunk& chunk, std::stop_token stop) {
    const ChunkHeader header{chunk.rung, chunk.index, chunk.first_frame, static_cast<int>(chunk.frames.size())};
    if (encoder_->is_open()) {
        // A GPU session the slot kept open goes on with another chunk of
        // its rung, anywhere in it: every chunk it was sent came back, and
        // this one starts with a forced key frame, so nothing of the stream
        // before it is referenced.
        const bool anywhere = chunk.first_frame != next_frame_ && chunks_.empty() && traits_.forces_key_frames;
        if (anywhere) chunks_.reset();
        chunks_.expect(chunk.rung, chunk.index, chunk.first_frame, header.frames);
        encoder_->next_chunk(header, anywhere);
    } else {
        chunks_.reset();
        chunks_.expect(chunk.rung, chunk.index, chunk.first_frame, header.frames);
        encoder_->open(header, *chunk.frames.front());
    }
    for (std::size_t i = 0; i < chunk.frames.size(); ++i) {
        encoder_->send(av::ref_frame(chunk.frames[i].get()), i == 0, sink_, stop);
        encoder_->drain(sink_, stop);
    }
    next_frame_ = chunk.first_frame + header.frames;
    const AVCodecParameters* stream = encoder_->stream();
    return stream ? chunks_.take_complete(*stream) : std::vector<EncodedChunk>{};
}

std::vector<EncodedChunk> SessionDriver::finish(std::stop_token stop) {
    if (!encoder_->is_open()) return {};
    return guarded([&] {
        encoder_->flush(sink_, stop);
        const AVCodecParameters* stream = encoder_->stream();
        if (!stream) throw RunError(fmt::format("{}: the encoder returned no packets", label_));
        std::vector<EncodedChunk> rest = chunks_.take_rest(*stream);
        // The session is over; the next send() opens a new one.
        chunks_.reset();
        encoder_->close();
        return rest;
    });
}

void SessionDriver::probe() { encoder_->probe(); }

}  // namespace ladder::engine
