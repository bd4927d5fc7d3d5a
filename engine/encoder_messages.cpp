#include "engine/encoder_messages.hpp"

#include <nlohmann/json.hpp>

#include "av/extradata.hpp"

namespace ladder::engine {

namespace {

template <typename Enum>
Enum as(const nlohmann::json& j, const char* key) {
    return static_cast<Enum>(j.at(key).get<int>());
}

}  // namespace

nlohmann::json slot_to_json(const gpu::EncoderSlot& slot) {
    return {{"id", slot.id},         {"kind", static_cast<int>(slot.kind)},
            {"encoder", slot.encoder}, {"device_index", slot.device_index},
            {"device", slot.device},   {"threads", slot.threads},
            {"label", slot.label}};
}

gpu::EncoderSlot slot_from_json(const nlohmann::json& j) {
    gpu::EncoderSlot s;
    s.id = j.at("id").get<int>();
    s.kind = as<gpu::DeviceKind>(j, "kind");
    s.encoder = j.at("encoder").get<std::string>();
    s.device_index = j.at("device_index").get<int>();
    s.device = j.at("device").get<std::string>();
    s.threads = j.at("threads").get<int>();
    s.label = j.at("label").get<std::string>();
    return s;
}

nlohmann::json settings_to_json(const EncoderSettings& s) {
    return {{"width", s.width},
            {"height", s.height},
            {"pix_fmt", s.pix_fmt},
            {"frame_rate", {s.frame_rate.num, s.frame_rate.den}},
            {"bitrate_kbps", s.bitrate_kbps},
            {"maxrate_kbps", s.maxrate_kbps},
            {"bufsize_kbps", s.bufsize_kbps},
            {"preset", s.preset},
            {"crf", s.crf},
            {"color_primaries", s.color_primaries},
            {"color_trc", s.color_trc},
            {"colorspace", s.colorspace},
            {"color_range", s.color_range}};
}

EncoderSettings settings_from_json(const nlohmann::json& j) {
    EncoderSettings s;
    s.width = j.at("width").get<int>();
    s.height = j.at("height").get<int>();
    s.pix_fmt = as<AVPixelFormat>(j, "pix_fmt");
    s.frame_rate = AVRational{j.at("frame_rate").at(0).get<int>(), j.at("frame_rate").at(1).get<int>()};
    s.bitrate_kbps = j.at("bitrate_kbps").get<int>();
    s.maxrate_kbps = j.at("maxrate_kbps").get<int>();
    s.bufsize_kbps = j.at("bufsize_kbps").get<int>();
    s.preset = j.at("preset").get<int>();
    s.crf = j.value("crf", -1);
    s.color_primaries = as<AVColorPrimaries>(j, "color_primaries");
    s.color_trc = as<AVColorTransferCharacteristic>(j, "color_trc");
    s.colorspace = as<AVColorSpace>(j, "colorspace");
    s.color_range = as<AVColorRange>(j, "color_range");
    return s;
}

nlohmann::json codecpar_to_json(const AVCodecParameters& p) {
    return {{"codec_type", p.codec_type},
            {"codec_id", p.codec_id},
            {"format", p.format},
            {"width", p.width},
            {"height", p.height},
            {"profile", p.profile},
            {"level", p.level},
            {"bit_rate", p.bit_rate},
            {"field_order", p.field_order},
            {"color_range", p.color_range},
            {"color_primaries", p.color_primaries},
            {"color_trc", p.color_trc},
            {"color_space", p.color_space},
            {"chroma_location", p.chroma_location},
            {"sample_aspect_ratio", {p.sample_aspect_ratio.num, p.sample_aspect_ratio.den}},
            {"video_delay", p.video_delay}};
}

av::CodecParametersPtr codecpar_from_json(const nlohmann::json& j, std::span<const std::uint8_t> extradata) {
    av::CodecParametersPtr p = av::make_codec_parameters();
    p->codec_type = as<AVMediaType>(j, "codec_type");
    p->codec_id = as<AVCodecID>(j, "codec_id");
    p->format = j.at("format").get<int>();
    p->width = j.at("width").get<int>();
    p->height = j.at("height").get<int>();
    p->profile = j.at("profile").get<int>();
    p->level = j.at("level").get<int>();
    p->bit_rate = j.at("bit_rate").get<std::int64_t>();
    p->field_order = as<AVFieldOrder>(j, "field_order");
    p->color_range = as<AVColorRange>(j, "color_range");
    p->color_primaries = as<AVColorPrimaries>(j, "color_primaries");
    p->color_trc = as<AVColorTransferCharacteristic>(j, "color_trc");
    p->color_space = as<AVColorSpace>(j, "color_space");
    p->chroma_location = as<AVChromaLocation>(j, "chroma_location");
    p->sample_aspect_ratio =
        AVRational{j.at("sample_aspect_ratio").at(0).get<int>(), j.at("sample_aspect_ratio").at(1).get<int>()};
    p->video_delay = j.at("video_delay").get<int>();
    av::set_extradata(p.get(), std::vector<std::uint8_t>(extradata.begin(), extradata.end()));
    return p;
}

}  // namespace ladder::engine
