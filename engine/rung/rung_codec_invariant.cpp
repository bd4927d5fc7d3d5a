#include "engine/rung/rung_codec_invariant.hpp"

#include <fmt/format.h>

#include "engine/base/errors.hpp"

namespace ladder::engine {

RungCodecInvariant::Verdict RungCodecInvariant::check(const EncodedChunk& chunk) {
    if (chunk.packets.empty()) return {false, {"no packets"}};
    const AVPacket* first = chunk.packets.front().get();
    auto header = mux::parse_sequence_header({first->data, static_cast<std::size_t>(first->size)});
    if (!header) return {false, {"no sequence header in the first packet"}};
    return check(*header);
}

RungCodecInvariant::Verdict RungCodecInvariant::check(const Dav1dSequenceHeader& header) {
    std::lock_guard lock(mu_);
    if (!contract_) {
        contract_ = header;
        return {true, {}};
    }
    auto diffs = mux::sequence_header_differences(*contract_, header, level_);
    return {diffs.empty(), std::move(diffs)};
}

std::optional<Dav1dSequenceHeader> RungCodecInvariant::contract() const {
    std::lock_guard lock(mu_);
    return contract_;
}

Dav1dSequenceHeader RungCodecInvariant::finished_contract(const std::string& rung_name) const {
    const auto c = contract();
    if (!c) throw RunError(fmt::format("rung {}: no sequence header to describe", rung_name));
    return *c;
}

}  // namespace ladder::engine
