#include "mux/av1_codecs_string.hpp"

#include <fmt/format.h>

#include "mux/av1_sequence_header.hpp"

namespace ladder::mux {

namespace {

// AV1-ISOBMFF §5 (Codecs Parameter String): when the sequence header carries
// no color description, cp/tc/mc SHOULD be the table's defaults (BT.709,
// code 1), not AV1's own "unspecified" (2) that dav1d reports.
constexpr int kDefaultColorCode = 1;

// The third digit is only meaningful for 4:2:0; the spec wants 0 otherwise
// (and dav1d does not read chroma_sample_position for other layouts).
int chroma_sample_position_digit(const Dav1dSequenceHeader& h) {
    return (h.ss_hor == 1 && h.ss_ver == 1) ? static_cast<int>(h.chr) : 0;
}

}  // namespace

std::string av1_codecs_string(const Dav1dSequenceHeader& h) {
    std::string out = fmt::format("av01.{}.{:02d}{}.{:02d}", h.profile, seq_level_idx(h),
                                  h.operating_points[0].tier ? 'H' : 'M', bit_depth(h));

    const bool described = h.color_description_present != 0;
    const int cp = described ? static_cast<int>(h.pri) : kDefaultColorCode;
    const int tc = described ? static_cast<int>(h.trc) : kDefaultColorCode;
    const int mc = described ? static_cast<int>(h.mtrx) : kDefaultColorCode;
    const std::string tail = fmt::format(".{}.{}{}{}.{:02d}.{:02d}.{:02d}.{}", h.monochrome ? 1 : 0, h.ss_hor,
                                         h.ss_ver, chroma_sample_position_digit(h), cp, tc, mc,
                                         h.color_range ? 1 : 0);
    // The tail is all-or-none; the spec asks to drop it when it says only
    // what a reader assumes anyway.
    if (tail != ".0.110.01.01.01.0") out += tail;
    return out;
}

}  // namespace ladder::mux
