// libFuzzer target: AV1 sequence header parsing (libdav1d through
// mux::parse_sequence_header) and everything ladder derives from a parsed
// header: the CODECS string, bit depth, level and the invariant comparison.
// The bytes are what `ladder validate` hands it from a file on disk (av1C
// config OBUs, the first packet of a segment).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "mux/av1_codecs_string.hpp"
#include "mux/av1_sequence_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto header = ladder::mux::parse_sequence_header(std::span<const uint8_t>(data, size));
    if (!header) return 0;
    const std::string codecs = ladder::mux::av1_codecs_string(*header);
    // Properties, not just "did not crash": a header equals itself at both
    // levels, and the CODECS string always has its fixed prefix.
    if (codecs.rfind("av01.", 0) != 0) std::abort();
    if (!ladder::mux::sequence_header_differences(*header, *header, ladder::mux::SpliceCheck::strict).empty())
        std::abort();
    if (!ladder::mux::sequence_header_differences(*header, *header, ladder::mux::SpliceCheck::config).empty())
        std::abort();
    const int depth = ladder::mux::bit_depth(*header);
    if (depth != 8 && depth != 10 && depth != 12) std::abort();
    (void)ladder::mux::seq_level_idx(*header);
    return 0;
}
