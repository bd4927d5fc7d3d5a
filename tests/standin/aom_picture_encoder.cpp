#include "tests/standin/aom_picture_encoder.hpp"

#include <aom/aomcx.h>

#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

namespace ladder::standin {

namespace {
void check(aom_codec_ctx_t& codec, aom_codec_err_t err, const char* what) {
    if (err != AOM_CODEC_OK)
        throw std::runtime_error(fmt::format("libaom: {}: {} ({})", what, aom_codec_err_to_string(err),
                                             aom_codec_error_detail(&codec) ? aom_codec_error_detail(&codec) : ""));
}
struct FreeBuffer {
    void operator()(aom_fixed_buf_t* b) const {
        if (!b) return;
        std::free(b->buf);  // libaom allocates both with malloc
        std::free(b);
    }
};
}  // namespace

AomPictureEncoder::AomPictureEncoder(const AomSettings& s) {
    aom_codec_iface_t* iface = aom_codec_av1_cx();
    aom_codec_enc_cfg_t cfg{};
    check(codec_, aom_codec_enc_config_default(iface, &cfg, AOM_USAGE_REALTIME), "default configuration");
    cfg.g_w = s.width;
    cfg.g_h = s.height;
    cfg.g_timebase = {static_cast<int>(s.fps_den), static_cast<int>(s.fps_num)};
    cfg.g_lag_in_frames = 0;
    cfg.g_threads = 2;
    cfg.g_bit_depth = s.ten_bit ? AOM_BITS_10 : AOM_BITS_8;
    cfg.g_input_bit_depth = s.ten_bit ? 10 : 8;
    cfg.g_profile = 0;
    cfg.kf_mode = AOM_KF_DISABLED;  // key frames come where NVENC would put IDRs
    switch (s.rate) {
        case AomSettings::Rate::vbr: cfg.rc_end_usage = AOM_VBR; break;
        case AomSettings::Rate::cbr: cfg.rc_end_usage = AOM_CBR; break;
        case AomSettings::Rate::constant_quality: cfg.rc_end_usage = AOM_Q; break;
    }
    cfg.rc_target_bitrate = s.kbps > 0 ? s.kbps : 2000;
    const aom_codec_flags_t flags = s.ten_bit ? AOM_CODEC_USE_HIGHBITDEPTH : 0;
    check(codec_, aom_codec_enc_init(&codec_, iface, &cfg, flags), "opening the encoder");
    open_ = true;
    check(codec_, aom_codec_control(&codec_, AOME_SET_CPUUSED, 10), "cpu-used");
    check(codec_, aom_codec_control(&codec_, AV1E_SET_COLOR_PRIMARIES, s.color_primaries), "colour primaries");
    check(codec_, aom_codec_control(&codec_, AV1E_SET_TRANSFER_CHARACTERISTICS, s.transfer_characteristics),
          "transfer characteristics");
    check(codec_, aom_codec_control(&codec_, AV1E_SET_MATRIX_COEFFICIENTS, s.matrix_coefficients), "matrix coefficients");
    check(codec_, aom_codec_control(&codec_, AV1E_SET_COLOR_RANGE, s.full_range ? 1 : 0), "colour range");
    if (s.rate == AomSettings::Rate::constant_quality)
        check(codec_, aom_codec_control(&codec_, AOME_SET_CQ_LEVEL, static_cast<int>(s.quality)), "cq-level");
}

AomPictureEncoder::~AomPictureEncoder() {
    if (open_) aom_codec_destroy(&codec_);
}

EncodedPicture AomPictureEncoder::encode(const aom_image_t& image, std::int64_t pts, bool key) {
    check(codec_, aom_codec_encode(&codec_, &image, pts, 1, key ? AOM_EFLAG_FORCE_KF : 0), "encoding");
    EncodedPicture out;
    aom_codec_iter_t iter = nullptr;
    while (const aom_codec_cx_pkt_t* pkt = aom_codec_get_cx_data(&codec_, &iter)) {
        if (pkt->kind != AOM_CODEC_CX_FRAME_PKT) continue;
        const auto* data = static_cast<const std::uint8_t*>(pkt->data.frame.buf);
        out.bytes.insert(out.bytes.end(), data, data + pkt->data.frame.sz);
        out.key = out.key || (pkt->data.frame.flags & AOM_FRAME_IS_KEY);
    }
    aom_codec_control(&codec_, AOME_GET_LAST_QUANTIZER_64, &out.qp);
    return out;
}

std::vector<std::uint8_t> AomPictureEncoder::sequence_header() {
    const std::unique_ptr<aom_fixed_buf_t, FreeBuffer> header(aom_codec_get_global_headers(&codec_));
    if (!header || !header->buf) return {};
    const auto* data = static_cast<const std::uint8_t*>(header->buf);
    return {data, data + header->sz};
}

}  // namespace ladder::standin
