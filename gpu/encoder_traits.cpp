#include "gpu/encoder_traits.hpp"

#include <array>
#include <limits>
#include <stdexcept>

namespace ladder::gpu {

namespace {

EncoderTraits svt_av1() {
    EncoderTraits t;
    t.name = "libsvtav1";
    t.short_name = "svt";
    t.family = EncoderFamily::svt_av1;
    t.device = DeviceKind::cpu;
    t.threaded = true;
    t.in_encoder_process = true;
    t.keeps_sessions = true;
    t.controls_session_rate = false;
    t.forces_key_frames = false;
    t.writes_hdr_metadata = true;
    t.takes_crf = true;
    // SVT-AV1 1.4.1 (preset 10, one-pass VBR) in sessions of 2-6 chunks
    // over the 7 clips of scripts/make-corpus.sh at 360p and 720p: median
    // first-chunk response 0.71; the rest 0.81 as a median of two groups
    // (0.55-0.84 and 0.95-1.17), taken as 0.9 so that a wrong guess
    // undershoots rather than overshoots. The other encoders: 1 (asked =
    // target).
    t.typical_response = {0.71, 0.9};
    // SVT-AV1 1.4.1 (Debian 12) and 2.3 (Debian 13), svt_av1_verify_settings:
    // source 64x64 to 16384x8704, target and max rate up to 100000 kb/s,
    // maximum_buffer_size_ms 20..10000 (FFmpeg's wrapper sets it to the
    // buffer over the rate). It runs plain VBR: no max rate.
    t.limits = {"SVT-AV1", 64, 64, 16384, 8704, 100'000, false, 20, 10'000};
    t.default_preset = 8;
    t.min_preset = 0;
    t.max_preset = 13;
    t.wider_alternative = " or use --encoder aom";
    return t;
}

EncoderTraits aom() {
    EncoderTraits t;
    t.name = "libaom-av1";
    t.short_name = "aom";
    t.family = EncoderFamily::aom;
    t.device = DeviceKind::cpu;
    t.threaded = true;
    t.in_encoder_process = true;
    t.keeps_sessions = false;
    // libaom 3.12 (Debian 13) takes up to 2000000 kb/s (3.6 does not check)
    // and frames of 1x1 to 65536x65536.
    t.limits = {"libaom", 1, 1, 65536, 65536, 2'000'000, true, 0, 0};
    t.default_preset = 6;  // cpu-used
    t.min_preset = 0;
    t.max_preset = 8;
    return t;
}

EncoderTraits nvenc() {
    EncoderTraits t;
    t.name = "av1_nvenc";
    t.short_name = "nvenc";
    t.family = EncoderFamily::nvenc;
    t.device = DeviceKind::nvidia;
    t.controls_session_rate = true;
    t.forces_key_frames = true;
    // nvEncodeAPI's averageBitRate and maxBitRate are 32-bit counts of bits
    // per second; the driver reports sizes at open (up to 8192x8192 on Ada).
    t.limits = {"NVENC", 1, 1, 65536, 65536, 4'294'967, true, 0, 0};
    t.default_preset = 5;  // p5: NVIDIA's "slow", good quality at real-time speed
    t.min_preset = 1;
    t.max_preset = 7;
    return t;
}

// NVENC driven by ladder itself: the same encoder and limits as av1_nvenc,
// without FFmpeg (Debian 12's FFmpeg 5.1 has no av1_nvenc).
EncoderTraits ladder_nvenc() {
    EncoderTraits t = nvenc();
    t.name = "ladder-nvenc";
    t.family = EncoderFamily::nvenc_direct;
    return t;
}

EncoderTraits quick_sync() {
    EncoderTraits t;
    t.name = "av1_qsv";
    t.short_name = "qsv";
    t.family = EncoderFamily::quick_sync;
    t.device = DeviceKind::intel;
    t.controls_session_rate = true;
    t.forces_key_frames = true;
    // FFmpeg's qsvenc scales kb/s into oneVPL's 16-bit fields with a
    // multiplier: no limit below an int of kb/s.
    t.limits = {"Quick Sync", 1, 1, 65536, 65536, std::numeric_limits<int>::max(), true, 0, 0};
    t.default_preset = 4;  // medium
    t.min_preset = 1;
    t.max_preset = 7;
    return t;
}

const std::array<EncoderTraits, 5>& table() {
    static const std::array<EncoderTraits, 5> t{svt_av1(), aom(), ladder_nvenc(), nvenc(), quick_sync()};
    return t;
}

}  // namespace

std::span<const EncoderTraits> all_encoder_traits() { return table(); }

const EncoderTraits* find_encoder_traits(std::string_view name) {
    for (const EncoderTraits& t : table())
        if (t.name == name) return &t;
    return nullptr;
}

const EncoderTraits& encoder_traits(std::string_view name) {
    if (const EncoderTraits* t = find_encoder_traits(name)) return *t;
    throw std::invalid_argument("encoder '" + std::string(name) + "' is not one ladder drives");
}

const EncoderTraits* gpu_encoder_traits(DeviceKind device, NvencClient client) {
    if (device == DeviceKind::nvidia) return &encoder_traits(client == NvencClient::ladder ? "ladder-nvenc" : "av1_nvenc");
    for (const EncoderTraits& t : table())
        if (t.gpu() && t.device == device) return &t;
    return nullptr;
}

}  // namespace ladder::gpu
