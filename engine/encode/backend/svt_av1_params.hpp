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
// (empty: none): the mini-GOP, always said. Left to the wrapper, it
// depended on the FFmpeg: 5.1's libsvtav1 set 16 frames, 6.0 and later
// leave SVT-AV1's own (32 in 1.4.1 at preset 10), and the same chunk at the
// same CRF came out 6% apart, so the budget chose other CRFs on another
// machine. The size per version is the best measured at the same rate
// against one-pass VBR (720p corpus, 27 clip-rungs; docs/benchmarks.md,
// "The mini-GOP said, by SVT-AV1 version"): 1.x 16 frames (32: 0.02 dB
// less; 8: 0.04 less, -0.50 at worst); 2.x 8 frames (its default 16 lost
// to its own VBR on animation, -0.34 dB; with 8, +0.63 dB on average, -0.07
// at worst; measured on 2.3.0).
std::string svt_av1_crf_params(int major_version);

}  // namespace ladder::engine
