// libaom, real-time usage with no lag, as the stand-in NVENC's encoder: one
// temporal unit out for every picture in, which is how NVENC with enablePTD
// and no B-frames behaves.
#pragma once

#include <aom/aom_encoder.h>
#include <aom/aom_image.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace ladder::standin {

struct AomSettings {
    unsigned width = 0;
    unsigned height = 0;
    unsigned fps_num = 25;
    unsigned fps_den = 1;
    bool ten_bit = false;
    enum class Rate { vbr, cbr, constant_quality } rate = Rate::vbr;
    unsigned kbps = 2000;
    unsigned quality = 32;  // 0-63, for constant_quality
    // ITU-T H.273 values, as NVENC's VUI fields and libaom both take them;
    // 2 (unspecified) everywhere writes no colour description.
    int color_primaries = 2;
    int transfer_characteristics = 2;
    int matrix_coefficients = 2;
    bool full_range = false;
};

struct EncodedPicture {
    std::vector<std::uint8_t> bytes;
    bool key = false;
    int qp = 0;  // libaom's last quantizer, 0-63
};

class AomPictureEncoder {
public:
    // Throws std::runtime_error when libaom refuses the settings.
    explicit AomPictureEncoder(const AomSettings& s);
    AomPictureEncoder(const AomPictureEncoder&) = delete;
    AomPictureEncoder& operator=(const AomPictureEncoder&) = delete;
    ~AomPictureEncoder();

    // The picture's planes are in `image` (I420, or I42016 for 10 bits).
    EncodedPicture encode(const aom_image_t& image, std::int64_t pts, bool key);
    // One Sequence Header OBU with its size field, as av1C wants it.
    std::vector<std::uint8_t> sequence_header();

private:
    aom_codec_ctx_t codec_{};
    bool open_ = false;
};

}  // namespace ladder::standin
