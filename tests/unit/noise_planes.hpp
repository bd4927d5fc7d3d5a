#pragma once
// Test helpers for comparing pictures made with different CPU code: 8-bit
// planar frames filled with noise (what rounding differences show on), a
// frame's samples as one byte string, and the CPU flags swscale may use
// forced for a scope.
#include <cstdint>
#include <utility>
#include <vector>

#include "av/handles.hpp"

extern "C" {
#include <libavutil/cpu.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::test {

// Width and height of plane p of an 8-bit planar frame.
inline std::pair<int, int> plane_size(const AVFrame* f, int p) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(f->format));
    if (p == 0) return {f->width, f->height};
    return {AV_CEIL_RSHIFT(f->width, d->log2_chroma_w), AV_CEIL_RSHIFT(f->height, d->log2_chroma_h)};
}

// Fills every sample of the frame's three planes with pseudo-random bytes.
inline void fill_with_noise(AVFrame* f, std::uint32_t seed) {
    for (int p = 0; p < 3; ++p) {
        const auto [w, h] = plane_size(f, p);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                seed = seed * 1664525u + 1013904223u;
                f->data[p][y * f->linesize[p] + x] = static_cast<std::uint8_t>(seed >> 24);
            }
    }
}

// The frame's samples, plane after plane, row after row (no padding).
inline std::vector<std::uint8_t> samples_of(const AVFrame* f) {
    std::vector<std::uint8_t> out;
    for (int p = 0; p < 3; ++p) {
        const auto [w, h] = plane_size(f, p);
        for (int y = 0; y < h; ++y) {
            const std::uint8_t* row = f->data[p] + y * f->linesize[p];
            out.insert(out.end(), row, row + w);
        }
    }
    return out;
}

// swscale (and all of FFmpeg) limited to these CPU flags while in scope
// (as av_force_cpu_flags takes them: 0 plain C, -1 all the CPU has).
class ForcedCpuFlags {
public:
    explicit ForcedCpuFlags(int flags) { av_force_cpu_flags(flags); }
    ~ForcedCpuFlags() { av_force_cpu_flags(-1); }
    ForcedCpuFlags(const ForcedCpuFlags&) = delete;
    ForcedCpuFlags& operator=(const ForcedCpuFlags&) = delete;
};

}  // namespace ladder::test
