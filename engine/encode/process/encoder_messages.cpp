#include "engine/encode/process/encoder_messages.hpp"

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
    s.set_encoder(j.at("encoder").get<std::string>());
    s.device_index = j.at("device_index").get<int>();
    s.device = j.at("device").get<std::string>();
    s.threads = j.at("threads").get<int>();
    s.label = j.at("label").get<std::string>();
    return s;
}

namespace {

// HDR10 metadata as numbers: the mastering display's R, G, B primaries and
// white point (x, y each) and its max and min luminance, as rationals; the
// content light levels as MaxCLL, MaxFALL.
nlohmann::json hdr_to_json(const av::HdrMetadata& h) {
    nlohmann::json j = nlohmann::json::object();
    auto q = [](AVRational r) { return nlohmann::json{r.num, r.den}; };
    if (h.mastering) {
        const auto& m = *h.mastering;
        nlohmann::json points = nlohmann::json::array();
        for (const auto& p : m.display_primaries) points.push_back({q(p[0]), q(p[1])});
        points.push_back({q(m.white_point[0]), q(m.white_point[1])});
        j["mastering"] = {{"points", points}, {"luminance", {q(m.max_luminance), q(m.min_luminance)}}};
    }
    if (h.content_light) j["content_light"] = {h.content_light->MaxCLL, h.content_light->MaxFALL};
    return j;
}

av::HdrMetadata hdr_from_json(const nlohmann::json& j) {
    av::HdrMetadata h;
    auto q = [](const nlohmann::json& r) { return AVRational{r.at(0).get<int>(), r.at(1).get<int>()}; };
    if (j.contains("mastering")) {
        AVMasteringDisplayMetadata m{};
        const auto& points = j.at("mastering").at("points");
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < 2; ++c) m.display_primaries[i][c] = q(points.at(i).at(c));
        for (int c = 0; c < 2; ++c) m.white_point[c] = q(points.at(3).at(c));
        m.max_luminance = q(j.at("mastering").at("luminance").at(0));
        m.min_luminance = q(j.at("mastering").at("luminance").at(1));
        m.has_primaries = m.has_luminance = 1;
        h.mastering = m;
    }
    if (j.contains("content_light")) {
        AVContentLightMetadata c{};
        c.MaxCLL = j.at("content_light").at(0).get<unsigned>();
        c.MaxFALL = j.at("content_light").at(1).get<unsigned>();
        h.content_light = c;
    }
    return h;
}

}  // namespace

nlohmann::json settings_to_json(const EncoderSettings& s) {
    return {{"hdr", hdr_to_json(s.hdr)},
            {"width", s.width},
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
    if (j.contains("hdr")) s.hdr = hdr_from_json(j.at("hdr"));
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
