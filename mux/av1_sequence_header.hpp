#pragma once
// AV1 sequence headers, parsed by libdav1d (never by hand), and the field
// comparison the per-rung codec invariant is built on.
#include <dav1d/dav1d.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ladder::mux {

// Finds and parses the sequence header OBU in a buffer of OBUs (a temporal
// unit or encoder extradata). nullopt when there is none or it is invalid.
std::optional<Dav1dSequenceHeader> parse_sequence_header(std::span<const uint8_t> obus);

enum class SpliceCheck {
    // Every field equal except operating_parameters_info (AV1 spec §7.5).
    strict,
    // Only what av1C and the sample entry carry: profile, level, tier, bit
    // depth, monochrome, subsampling, chroma position, color, max frame size.
    config,
};

// Names of the fields that differ at the given level; empty when equal.
std::vector<std::string> sequence_header_differences(const Dav1dSequenceHeader& a,
                                                     const Dav1dSequenceHeader& b, SpliceCheck level);

int bit_depth(const Dav1dSequenceHeader& h);
// seq_level_idx of operating point 0 (level 4.0 -> 8).
int seq_level_idx(const Dav1dSequenceHeader& h);

}  // namespace ladder::mux
