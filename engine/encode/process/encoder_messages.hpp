#pragma once
// What ladder and an encoder process tell each other, as JSON: the slot and
// settings an encoder is opened with, and the stream parameters of the
// chunk it made (extradata travels as the message's bytes).
#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "av/handles.hpp"
#include "engine/encode/backend/encoder_backend.hpp"

namespace ladder::engine {

nlohmann::json slot_to_json(const gpu::EncoderSlot& slot);
gpu::EncoderSlot slot_from_json(const nlohmann::json& j);

nlohmann::json settings_to_json(const EncoderSettings& s);
EncoderSettings settings_from_json(const nlohmann::json& j);

nlohmann::json codecpar_to_json(const AVCodecParameters& par);
av::CodecParametersPtr codecpar_from_json(const nlohmann::json& j, std::span<const std::uint8_t> extradata);

}  // namespace ladder::engine
