#pragma once
// What ladder asks of SVT-AV1 beyond libavcodec's options, by the version
// of the library libavcodec's libsvtav1 runs on.
#include <string>
#include <string_view>

namespace ladder::engine {

// The major version in SVT-AV1's version text ("v2.3.0", "2.3.0-rc1"); 0
// when there is none.
int svt_av1_major_of(std::string_view version);

// The major version of the SVT-AV1 library loaded with libavcodec (asked
// once); 0 when none is loaded or it does not say.
int loaded_svt_av1_major();

// svtav1-params for a constant-quality (CRF) session, each ":key=value"
// (empty: none). SVT-AV1 2.x's CRF at its default 16-frame mini-GOP lost to
// its own one-pass VBR at the same rate on animation (-0.34 dB PSNR at 540p,
// the 720p corpus); with 8-frame mini-GOPs (hierarchical-levels=3) CRF
// beats VBR by +0.63 dB on average there, -0.07 at worst (+0.56 and -0.34
// before). SVT-AV1 1.x does worse with them (-0.50 dB at worst) and needs
// none (docs/benchmarks.md, "SVT-AV1 2.x: CRF at 8-frame mini-GOPs").
std::string svt_av1_crf_params(int major_version);

}  // namespace ladder::engine
