#include "engine/encoder_backend.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "av/av_error.hpp"
#include "av/codec_formats.hpp"
#include "av/codec_lifecycle.hpp"
#include "av/extradata.hpp"
#include "av/hw_device.hpp"
#include "engine/errors.hpp"
#include "engine/libavcodec_encoder.hpp"
#include "mux/av1_sequence_header.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

std::string encoder_size_problem(const std::string& encoder, int width, int height) {
    if (encoder == "libsvtav1" && (width < 64 || height < 64))
        return fmt::format("{}x{} is below SVT-AV1's minimum of 64x64", width, height);
    return "";
}

int default_preset(const std::string& encoder) {
    if (encoder == "libaom-av1") return 6;
    if (encoder == "av1_nvenc") return 5;  // p5: NVIDIA's "slow", good quality at real-time speed
    if (encoder == "av1_qsv") return 4;    // medium
    return 8;
}

std::unique_ptr<EncoderBackend> make_encoder_backend(const gpu::EncoderSlot& slot, const EncoderSettings& settings) {
    return std::make_unique<LibavcodecEncoder>(slot, settings);
}

EncodedChunk EncoderBackend::encode_as_session(const RawChunk& chunk, std::stop_token stop,
                                               const std::string& label) {
    std::vector<EncodedChunk> out = send(chunk, stop);
    for (EncodedChunk& c : finish(stop)) out.push_back(std::move(c));
    if (out.size() != 1) throw RunError(fmt::format("{}: chunk {} did not come back", label, chunk.index));
    return std::move(out.front());
}

bool encoder_keeps_sessions(const std::string& encoder) { return encoder != "libaom-av1"; }

bool encoder_controls_session_rate(const std::string& encoder) {
    return encoder == "av1_nvenc" || encoder == "av1_qsv";
}

}  // namespace ladder::engine
