#pragma once
// Which CPU encoders' chunks are decoded before they are accepted
// (engine/check/chunk_decode.hpp). Decoding costs: 8-10% of a budget run's
// CPU at preset 8 on 16 cores (docs/benchmarks.md), so by default only an
// encoder known to write an undecodable frame under its thread race is
// checked: SVT-AV1 2.x (docs/hardening.md "The race can also corrupt a
// frame"), and one whose version is not known. --verify-chunks all
// decodes every CPU encoder's chunks.
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::engine {

// SVT-AV1 ("v2.3.0", "2.1.0-rc1") from 2.0 on, or of an unknown version.
bool may_write_undecodable_frames(std::string_view encoder, std::string_view version);

// Of these CPU encoders (libavcodec names) and their library versions,
// those whose chunks are decoded: every one with `all`.
std::set<std::string> encoders_to_verify(const std::vector<std::pair<std::string, std::string>>& encoders, bool all);

}  // namespace ladder::engine
