#pragma once
// swscale's settings for every picture ladder scales or converts on the CPU.
// swscale's default rounding differs by SIMD code (MMXEXT/SSE/AVX2, NEON)
// from its plain C: a rung's pixels, its chunks' sizes and with them the
// CRFs the budget chooses would depend on the machine's CPU. Bit-exact
// rounding gives every machine the plain C result, for about 2.5% more CPU
// in a budget run on 16 cores (its passes scale the kept frames again;
// docs/benchmarks.md, "One mini-GOP whatever the FFmpeg; bit-exact scaling").
extern "C" {
#include <libswscale/swscale.h>
}

namespace ladder::av {

// Flags to add to an algorithm's (SWS_BICUBIC, SWS_POINT, ...).
inline constexpr int kBitExactScaling = SWS_ACCURATE_RND | SWS_BITEXACT;

// The same for libavfilter's scale filter (flags= of scale, or a graph's
// options for the scale filters it inserts to convert formats).
inline constexpr const char* kBitExactBicubicFlags = "bicubic+accurate_rnd+bitexact";

}  // namespace ladder::av
