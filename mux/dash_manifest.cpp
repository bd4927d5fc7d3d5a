#include "mux/dash_manifest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <pugixml.hpp>
#include <sstream>
#include <utility>
#include <stdexcept>

namespace ladder::mux {

namespace {

constexpr const char* kProfiles = "urn:mpeg:dash:profile:isoff-live:2011,urn:mpeg:dash:profile:cmaf:2019";
constexpr const char* kChannelScheme = "urn:mpeg:dash:23003:3:audio_channel_configuration:2011";

// <SegmentTemplate> over FOLDER/init.mp4 and FOLDER/seg_NNNNN.m4s, with a
// <SegmentTimeline> whose runs of equal, back-to-back segments are one <S r>.
void add_segment_template(pugi::xml_node parent, const std::string& folder, const DashTimeline& timeline,
                          const std::string& what) {
    if (timeline.segments.empty()) throw std::invalid_argument(what + " has no segments");
    auto tmpl = parent.append_child("SegmentTemplate");
    tmpl.append_attribute("timescale") = static_cast<long long>(timeline.timescale);
    tmpl.append_attribute("initialization") = (folder + "/init.mp4").c_str();
    tmpl.append_attribute("media") = (folder + "/seg_$Number%05d$.m4s").c_str();
    tmpl.append_attribute("startNumber") = 1;
    auto list = tmpl.append_child("SegmentTimeline");
    std::int64_t expected_start = -1;
    pugi::xml_node run;
    std::int64_t run_duration = 0;
    int repeats = 0;
    for (const auto& s : timeline.segments) {
        const bool continues = run && s.start == expected_start && s.duration == run_duration;
        if (continues) {
            ++repeats;
            run.remove_attribute("r");
            run.append_attribute("r") = repeats;
        } else {
            run = list.append_child("S");
            // t only where the timeline does not simply go on (the first S,
            // or after a gap).
            if (s.start != expected_start) run.append_attribute("t") = static_cast<long long>(s.start);
            run.append_attribute("d") = static_cast<long long>(s.duration);
            run_duration = s.duration;
            repeats = 0;
        }
        expected_start = s.start + s.duration;
    }
}

}  // namespace

std::string dash_duration(double seconds) {
    if (!(seconds >= 0)) throw std::invalid_argument("a negative or NaN duration");
    const auto millis = static_cast<long long>(std::llround(seconds * 1000.0));
    const long long hours = millis / 3'600'000;
    const long long minutes = millis / 60'000 % 60;
    const double secs = static_cast<double>(millis % 60'000) / 1000.0;
    std::string out = "PT";
    if (hours) out += fmt::format("{}H", hours);
    if (hours || minutes) out += fmt::format("{}M", minutes);
    out += fmt::format("{:.3f}S", secs);
    return out;
}

std::string render_dash_manifest(const DashManifest& m) {
    if (m.video.empty()) throw std::invalid_argument("a DASH manifest needs at least one video representation");
    pugi::xml_document doc;
    auto decl = doc.append_child(pugi::node_declaration);
    decl.append_attribute("version") = "1.0";
    decl.append_attribute("encoding") = "UTF-8";
    auto mpd = doc.append_child("MPD");
    mpd.append_attribute("xmlns") = "urn:mpeg:dash:schema:mpd:2011";
    mpd.append_attribute("profiles") = kProfiles;
    mpd.append_attribute("type") = "static";
    mpd.append_attribute("mediaPresentationDuration") = dash_duration(m.duration_seconds).c_str();
    mpd.append_attribute("maxSegmentDuration") = dash_duration(m.max_segment_seconds).c_str();
    mpd.append_attribute("minBufferTime") = dash_duration(std::max(2.0, m.max_segment_seconds)).c_str();
    auto period = mpd.append_child("Period");
    period.append_attribute("id") = "0";
    period.append_attribute("start") = "PT0S";

    auto video = period.append_child("AdaptationSet");
    video.append_attribute("id") = 0;
    video.append_attribute("contentType") = "video";
    video.append_attribute("mimeType") = "video/mp4";
    video.append_attribute("segmentAlignment") = "true";
    video.append_attribute("startWithSAP") = 1;
    int max_width = 0, max_height = 0;
    for (const auto& v : m.video) {
        max_width = std::max(max_width, v.width);
        max_height = std::max(max_height, v.height);
    }
    video.append_attribute("maxWidth") = max_width;
    video.append_attribute("maxHeight") = max_height;
    const auto& first = m.video.front();
    const std::string frame_rate = first.frame_rate_den == 1
                                       ? std::to_string(first.frame_rate_num)
                                       : fmt::format("{}/{}", first.frame_rate_num, first.frame_rate_den);
    video.append_attribute("maxFrameRate") = frame_rate.c_str();
    const int divisor = std::max(1, std::gcd(first.width, first.height));
    video.append_attribute("par") = fmt::format("{}:{}", first.width / divisor, first.height / divisor).c_str();
    for (const auto& [scheme, value] : {std::pair{kCicpColourPrimaries, m.colour_primaries},
                                        std::pair{kCicpTransferCharacteristics, m.transfer_characteristics},
                                        std::pair{kCicpMatrixCoefficients, m.matrix_coefficients}}) {
        if (value <= 0) continue;
        auto property = video.append_child("SupplementalProperty");
        property.append_attribute("schemeIdUri") = scheme;
        property.append_attribute("value") = value;
    }
    for (const auto& v : m.video) {
        auto rep = video.append_child("Representation");
        rep.append_attribute("id") = v.id.c_str();
        rep.append_attribute("bandwidth") = static_cast<unsigned long long>(v.bandwidth);
        rep.append_attribute("codecs") = v.codecs.c_str();
        rep.append_attribute("width") = v.width;
        rep.append_attribute("height") = v.height;
        rep.append_attribute("frameRate") = frame_rate.c_str();
        rep.append_attribute("sar") = "1:1";
        add_segment_template(rep, v.folder, v.timeline, "representation " + v.id);
    }

    int set_id = 1;
    for (const auto& a : m.audio) {
        auto set = period.append_child("AdaptationSet");
        set.append_attribute("id") = set_id++;
        set.append_attribute("contentType") = "audio";
        set.append_attribute("mimeType") = "audio/mp4";
        set.append_attribute("lang") = a.language.c_str();
        set.append_attribute("segmentAlignment") = "true";
        set.append_attribute("startWithSAP") = 1;
        if (!a.label.empty()) set.append_child("Label").text() = a.label.c_str();
        auto role = set.append_child("Role");
        role.append_attribute("schemeIdUri") = "urn:mpeg:dash:role:2011";
        role.append_attribute("value") = a.is_default ? "main" : "alternate";
        auto rep = set.append_child("Representation");
        rep.append_attribute("id") = a.id.c_str();
        rep.append_attribute("bandwidth") = static_cast<unsigned long long>(a.bandwidth);
        rep.append_attribute("codecs") = a.codecs.c_str();
        rep.append_attribute("audioSamplingRate") = a.sample_rate;
        auto channels = rep.append_child("AudioChannelConfiguration");
        channels.append_attribute("schemeIdUri") = kChannelScheme;
        channels.append_attribute("value") = a.channels;
        add_segment_template(rep, a.folder, a.timeline, "representation " + a.id);
    }
    for (const auto& t : m.text) {
        auto set = period.append_child("AdaptationSet");
        set.append_attribute("id") = set_id++;
        set.append_attribute("contentType") = "text";
        set.append_attribute("mimeType") = "text/vtt";
        set.append_attribute("lang") = t.language.c_str();
        if (!t.label.empty()) set.append_child("Label").text() = t.label.c_str();
        auto role = set.append_child("Role");
        role.append_attribute("schemeIdUri") = "urn:mpeg:dash:role:2011";
        role.append_attribute("value") = t.is_forced ? "forced-subtitle" : "subtitle";
        auto rep = set.append_child("Representation");
        rep.append_attribute("id") = t.id.c_str();
        rep.append_attribute("bandwidth") = static_cast<unsigned long long>(std::max<std::uint64_t>(1, t.bandwidth));
        rep.append_child("BaseURL").text() = t.file.c_str();
    }
    std::ostringstream out;
    doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
    return out.str();
}

}  // namespace ladder::mux
