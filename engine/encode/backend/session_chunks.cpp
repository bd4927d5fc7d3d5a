#include "engine/encode/backend/session_chunks.hpp"

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

}  // namespace ladder::engine
