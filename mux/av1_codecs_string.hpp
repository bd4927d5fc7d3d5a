#pragma once
// The HLS/DASH CODECS string of an AV1 stream, from its sequence header
// (AV1-ISOBMFF §5): av01.P.LLT.DD[.M.CCC.cp.tc.mc.F]. The optional tail is
// written only when it differs from the default .0.110.01.01.01.0.
#include <dav1d/dav1d.h>

#include <string>

namespace ladder::mux {

std::string av1_codecs_string(const Dav1dSequenceHeader& h);

}  // namespace ladder::mux
