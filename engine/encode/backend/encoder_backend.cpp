#include "engine/encode/backend/encoder_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "av/av_error.hpp"
#include "av/codec_formats.hpp"
#include "av/codec_lifecycle.hpp"
#include "av/extradata.hpp"
#include "av/hw_device.hpp"
#include "engine/base/errors.hpp"
#include "engine/encode/backend/libavcodec_encoder.hpp"
#include "engine/encode/backend/nvenc_encoder.hpp"
#include "engine/encode/backend/session_driver.hpp"
#include "mux/av1_sequence_header.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::engine {

namespace {

std::string size_problem(const EncoderLimits& l, const RungSpec& r) {
    if (r.width < l.min_width || r.height < l.min_height)
        return fmt::format("{}x{} is below {}'s minimum of {}x{}", r.width, r.height, l.label, l.min_width,
                           l.min_height);
    if (r.width > l.max_width || r.height > l.max_height)
        return fmt::format("{}x{} is above {}'s maximum of {}x{}", r.width, r.height, l.label, l.max_width,
                           l.max_height);
    return "";
}

std::string rate_problem(const EncoderLimits& l, const RungSpec& r) {
    if (r.bitrate_kbps > l.max_kbps)
        return fmt::format("{} kb/s is above {}'s maximum of {} kb/s", r.bitrate_kbps, l.label, l.max_kbps);
    if (l.takes_max_rate && r.maxrate_kbps > l.max_kbps)
        return fmt::format("maxrate_kbps {} is above {}'s maximum of {} kb/s", r.maxrate_kbps, l.label, l.max_kbps);
    return "";
}

std::string buffer_problem(const EncoderLimits& l, const RungSpec& r) {
    if (r.bufsize_kbps > kMaxBufferKbits)
        return fmt::format("bufsize_kbps {} is above FFmpeg's maximum of {} kb", r.bufsize_kbps, kMaxBufferKbits);
    if (!r.bufsize_kbps || !l.max_buffer_ms || r.bitrate_kbps <= 0) return "";
    const std::int64_t ms = std::int64_t{r.bufsize_kbps} * 1000 / r.bitrate_kbps;
    if (ms >= l.min_buffer_ms && ms <= l.max_buffer_ms) return "";
    return fmt::format("bufsize_kbps {} is {} ms of its {} kb/s; {} takes a buffer of {} to {} ms of the rate "
                       "({} to {} kb here)",
                       r.bufsize_kbps, ms, r.bitrate_kbps, l.label, l.min_buffer_ms, l.max_buffer_ms,
                       (std::int64_t{r.bitrate_kbps} * l.min_buffer_ms + 999) / 1000,
                       std::int64_t{r.bitrate_kbps} * l.max_buffer_ms / 1000);
}

}  // namespace

std::string crf_problem(const EncoderTraits& encoder, const RungSpec& r) {
    if (r.crf < 0 || encoder.takes_crf) return "";
    return fmt::format("crf {} needs an encoder that takes a constant quality (SVT-AV1); {} encodes to a rate: "
                       "leave \"crf\" out or encode this rung on the CPU with SVT-AV1",
                       r.crf, encoder.limits.label);
}

std::string encoder_rung_problem(const EncoderTraits& encoder, const RungSpec& rung) {
    const EncoderLimits& limits = encoder.limits;
    for (const auto& problem : {size_problem(limits, rung), rate_problem(limits, rung), buffer_problem(limits, rung),
                                crf_problem(encoder, rung)})
        if (!problem.empty()) return fmt::format("{} ({})", problem, encoder.name);
    return "";
}

RateControl rate_control(const EncoderTraits& encoder, const EncoderSettings& s) {
    const EncoderLimits& l = encoder.limits;
    const std::int64_t max_bits = std::int64_t{l.max_kbps} * 1000;
    RateControl rc;
    rc.bit_rate = std::min(std::int64_t{s.bitrate_kbps} * 1000, max_bits);
    if (l.takes_max_rate)
        rc.max_rate = std::min(s.maxrate_kbps ? std::int64_t{s.maxrate_kbps} * 1000 : rc.bit_rate * 3 / 2, max_bits);
    std::int64_t buffer = s.bufsize_kbps ? std::int64_t{s.bufsize_kbps} * 1000 : 2 * rc.bit_rate;
    // A session's share moves its rate away from the rung's; the rung's
    // buffer stays within what the encoder takes for the session's rate.
    if (l.max_buffer_ms)
        buffer = std::clamp(buffer, (rc.bit_rate * l.min_buffer_ms + 999) / 1000, rc.bit_rate * l.max_buffer_ms / 1000);
    rc.buffer_bits = static_cast<int>(std::min<std::int64_t>(buffer, std::numeric_limits<int>::max()));
    return rc;
}

int session_preset(const EncoderTraits& encoder, const EncoderSettings& settings) {
    const int preset = settings.preset >= 0 ? settings.preset : encoder.default_preset;
    return std::clamp(preset, encoder.min_preset, encoder.max_preset);
}

std::unique_ptr<EncoderBackend> make_encoder_backend(const gpu::EncoderSlot& slot, const EncoderSettings& settings) {
    if (slot.traits().family == gpu::EncoderFamily::nvenc_direct)
        return std::make_unique<SessionDriver>(std::make_unique<NvencEncoder>(slot, settings), slot);
    return std::make_unique<SessionDriver>(std::make_unique<LibavcodecEncoder>(slot, settings), slot);
}

EncodedChunk EncoderBackend::encode_as_session(const RawChunk& chunk, std::stop_token stop,
                                               const std::string& label) {
    std::vector<EncodedChunk> out = send(chunk, stop);
    for (EncodedChunk& c : finish(stop)) out.push_back(std::move(c));
    if (out.size() != 1) throw RunError(fmt::format("{}: chunk {} did not come back", label, chunk.index));
    return std::move(out.front());
}

}  // namespace ladder::engine
