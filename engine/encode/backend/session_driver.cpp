#include "engine/encode/backend/session_driver.hpp"

#include <fmt/format.h>

#include "av/extradata.hpp"
#include "engine/base/errors.hpp"
#include "mux/av1_sequence_header.hpp"

namespace ladder::engine {

SessionChunks::SessionChunks(std::string encoder, std::string slot_label)
    : encoder_(std::move(encoder)), slot_label_(std::move(slot_label)) {}

void SessionChunks::expect(int rung, int index, std::int64_t first_frame, std::int64_t frames) {
    if (!chunks_.empty() && chunks_.back().first_frame + chunks_.back().frame_count != first_frame)
        throw RunError(fmt::format("{}: chunk {} (frame {}) does not follow chunk {} in one encoder session",
                                   slot_label_, index, first_frame, chunks_.back().index));
    EncodedChunk c;
    c.rung = rung;
    c.index = index;
    c.first_frame = first_frame;
    c.frame_count = frames;
    c.slot_label = slot_label_;
    c.encoder = encoder_;
    chunks_.push_back(std::move(c));
}

void SessionChunks::add(av::PacketPtr packet) {
    const std::int64_t pts = packet->pts;
    // AV1 has no visible reordering: one temporal unit per shown frame,
    // decode order = presentation order.
    if (pts <= last_pts_)
        throw RunError(fmt::format("{} returned frame {} after frame {}", encoder_, pts, last_pts_));
    for (EncodedChunk& c : chunks_) {
        if (pts < c.first_frame || pts >= c.first_frame + c.frame_count) continue;
        last_pts_ = pts;
        packet->dts = pts;
        packet->duration = 1;
        c.bytes += static_cast<std::size_t>(packet->size);
        c.packets.push_back(std::move(packet));
        return;
    }
    throw RunError(fmt::format("{} returned a packet for frame {}, outside the chunks it was sent", encoder_, pts));
}

EncodedChunk SessionChunks::finish(EncodedChunk c, const AVCodecParameters& stream) const {
    if (static_cast<std::int64_t>(c.packets.size()) != c.frame_count)
        throw RunError(fmt::format("{} returned {} packets for {} frames in chunk {}", encoder_, c.packets.size(),
                                   c.frame_count, c.index));
    const AVPacket* first = c.packets.front().get();
    if (!(first->flags & AV_PKT_FLAG_KEY) ||
        !mux::parse_sequence_header({first->data, static_cast<std::size_t>(first->size)}))
        throw RunError(fmt::format("{} did not start chunk {} with a key frame and sequence header", encoder_,
                                   c.index));
    auto par = av::make_codec_parameters();
    if (avcodec_parameters_copy(par.get(), &stream) < 0) throw std::bad_alloc();
    // av1C must carry the sequence header the key frame signals, not
    // whatever the encoder offered at open time.
    av::set_extradata(par.get(), av::extract_extradata(first, par.get()));
    if (par->extradata_size == 0)
        throw RunError(fmt::format("{}: no sequence header could be extracted from chunk {}", encoder_, c.index));
    c.codecpar = std::move(par);
    return c;
}

std::vector<EncodedChunk> SessionChunks::take_complete(const AVCodecParameters& stream) {
    std::vector<EncodedChunk> out;
    while (!chunks_.empty() && static_cast<std::int64_t>(chunks_.front().packets.size()) == chunks_.front().frame_count) {
        out.push_back(finish(std::move(chunks_.front()), stream));
        chunks_.pop_front();
    }
    return out;
}

void SessionChunks::reset() {
    chunks_.clear();
    last_pts_ = -1;
}

std::vector<EncodedChunk> SessionChunks::take_rest(const AVCodecParameters& stream) {
    std::vector<EncodedChunk> out;
    while (!chunks_.empty()) {
        out.push_back(finish(std::move(chunks_.front()), stream));
        chunks_.pop_front();
    }
    return out;
}

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

bool SessionDriver::open_ahead() {
    return guarded([&] { return encoder_->open_ahead(); });
}

}  // namespace ladder::engine
