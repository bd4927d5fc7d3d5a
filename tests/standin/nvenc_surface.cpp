#include "tests/standin/nvenc_surface.hpp"

#include <cstring>

namespace ladder::standin {

// Planes of a surface laid out as NVENC defines its buffer formats (chroma
// after `height` rows of luma; planar chroma at half the pitch) into
// libaom's I420 / I42016.
void fill_image(const std::uint8_t* base, const Surface& s, std::uint32_t width, std::uint32_t height, aom_image_t& img) {
    const std::uint32_t cw = (width + 1) / 2, ch = (height + 1) / 2;
    const std::uint8_t* chroma = base + static_cast<std::size_t>(s.pitch) * s.height;
    if (ten_bit(s.format)) {
        for (std::uint32_t y = 0; y < height; ++y) {
            const auto* src = reinterpret_cast<const std::uint16_t*>(base + static_cast<std::size_t>(y) * s.pitch);
            auto* dst = reinterpret_cast<std::uint16_t*>(img.planes[0] + static_cast<std::size_t>(y) * img.stride[0]);
            for (std::uint32_t x = 0; x < width; ++x) dst[x] = static_cast<std::uint16_t>(src[x] >> 6);
        }
        for (std::uint32_t y = 0; y < ch; ++y) {
            const auto* src = reinterpret_cast<const std::uint16_t*>(chroma + static_cast<std::size_t>(y) * s.pitch);
            auto* u = reinterpret_cast<std::uint16_t*>(img.planes[1] + static_cast<std::size_t>(y) * img.stride[1]);
            auto* v = reinterpret_cast<std::uint16_t*>(img.planes[2] + static_cast<std::size_t>(y) * img.stride[2]);
            for (std::uint32_t x = 0; x < cw; ++x) {
                u[x] = static_cast<std::uint16_t>(src[2 * x] >> 6);
                v[x] = static_cast<std::uint16_t>(src[2 * x + 1] >> 6);
            }
        }
        return;
    }
    for (std::uint32_t y = 0; y < height; ++y)
        std::memcpy(img.planes[0] + static_cast<std::size_t>(y) * img.stride[0], base + static_cast<std::size_t>(y) * s.pitch, width);
    if (s.format == NV_ENC_BUFFER_FORMAT_NV12) {
        for (std::uint32_t y = 0; y < ch; ++y) {
            const std::uint8_t* src = chroma + static_cast<std::size_t>(y) * s.pitch;
            std::uint8_t* u = img.planes[1] + static_cast<std::size_t>(y) * img.stride[1];
            std::uint8_t* v = img.planes[2] + static_cast<std::size_t>(y) * img.stride[2];
            for (std::uint32_t x = 0; x < cw; ++x) {
                u[x] = src[2 * x];
                v[x] = src[2 * x + 1];
            }
        }
        return;
    }
    const std::size_t half = s.pitch / 2;
    const std::uint8_t* first = chroma;
    const std::uint8_t* second = chroma + half * ((s.height + 1) / 2);
    const std::uint8_t* u = s.format == NV_ENC_BUFFER_FORMAT_YV12 ? second : first;
    const std::uint8_t* v = s.format == NV_ENC_BUFFER_FORMAT_YV12 ? first : second;
    for (std::uint32_t y = 0; y < ch; ++y) {
        std::memcpy(img.planes[1] + static_cast<std::size_t>(y) * img.stride[1], u + y * half, cw);
        std::memcpy(img.planes[2] + static_cast<std::size_t>(y) * img.stride[2], v + y * half, cw);
    }
}

}  // namespace ladder::standin
