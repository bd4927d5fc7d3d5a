#pragma once
// The contract of one rung: the AV1 sequence header of its first accepted
// chunk. Every later chunk must match it (strict: every field but
// operating_parameters_info; config: the av1C fields) before it is stitched,
// because a decoder initialised from av1C may not re-initialise mid-stream.
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/chunk.hpp"
#include "mux/av1_sequence_header.hpp"

namespace ladder::engine {

class RungCodecInvariant {
public:
    explicit RungCodecInvariant(mux::SpliceCheck level) : level_(level) {}

    struct Verdict {
        bool accepted = false;
        std::vector<std::string> differences;  // field names, when refused
    };

    // Parses the sequence header at the start of the chunk; the first chunk
    // checked sets the contract.
    Verdict check(const EncodedChunk& chunk);
    Verdict check(const Dav1dSequenceHeader& header);

    std::optional<Dav1dSequenceHeader> contract() const;
    // The contract of a finished rung, which the manifests describe; throws
    // RunError naming the rung when no chunk set one.
    Dav1dSequenceHeader finished_contract(const std::string& rung_name) const;

private:
    mux::SpliceCheck level_;
    mutable std::mutex mu_;  // the rung contract's own: guards contract_; a leaf
    std::optional<Dav1dSequenceHeader> contract_;
};

}  // namespace ladder::engine
