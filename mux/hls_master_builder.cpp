#include "mux/hls_master_builder.hpp"

#include <fmt/format.h>

namespace ladder::mux {

std::string video_range_for_transfer(int tc) {
    if (tc == 16) return "PQ";   // SMPTE ST 2084
    if (tc == 18) return "HLG";  // ARIB STD-B67
    return "SDR";
}

namespace {

int target_of(const std::vector<SegmentSize>& segments) {
    std::vector<double> d;
    for (const auto& s : segments) d.push_back(s.duration);
    return target_duration(d);
}

}  // namespace

MasterPlaylist build_master_playlist(const std::vector<VideoRenditionSummary>& video,
                                     const std::optional<AudioRenditionSummary>& audio) {
    MasterPlaylist m;
    m.version = 7;
    m.independent_segments = true;
    std::uint64_t audio_peak = 0;
    std::uint64_t audio_average = 0;
    if (audio) {
        audio_peak = peak_bandwidth(audio->segments, target_of(audio->segments));
        audio_average = average_bandwidth(audio->segments);
        HlsAttributes a;
        a.set("TYPE", "AUDIO", false);
        a.set("GROUP-ID", audio->group_id, true);
        a.set("NAME", audio->name, true);
        a.set("LANGUAGE", audio->language, true);
        a.set("DEFAULT", "YES", false);
        a.set("AUTOSELECT", "YES", false);
        a.set("CHANNELS", std::to_string(audio->channels), true);
        a.set("URI", audio->uri, true);
        m.media.push_back(std::move(a));
    }
    for (const auto& v : video) {
        HlsAttributes a;
        // A variant's numbers include the audio it is played with (RFC 8216 §4.3.4.2).
        a.set("BANDWIDTH", std::to_string(peak_bandwidth(v.segments, target_of(v.segments)) + audio_peak), false);
        a.set("AVERAGE-BANDWIDTH", std::to_string(average_bandwidth(v.segments) + audio_average), false);
        a.set("CODECS", audio ? v.codecs + "," + audio->codecs : v.codecs, true);
        a.set("RESOLUTION", fmt::format("{}x{}", v.width, v.height), false);
        a.set("FRAME-RATE", fmt::format("{:.3f}", v.frame_rate), false);
        a.set("VIDEO-RANGE", v.video_range, false);
        if (audio) a.set("AUDIO", audio->group_id, true);
        m.variants.push_back({std::move(a), v.uri});
    }
    for (const auto& v : video) {
        HlsAttributes a;
        a.set("BANDWIDTH", std::to_string(peak_bandwidth(v.iframes, target_of(v.iframes))), false);
        a.set("AVERAGE-BANDWIDTH", std::to_string(average_bandwidth(v.iframes)), false);
        a.set("CODECS", v.codecs, true);
        a.set("RESOLUTION", fmt::format("{}x{}", v.width, v.height), false);
        a.set("VIDEO-RANGE", v.video_range, false);
        a.set("URI", v.iframe_uri, true);
        m.iframe_streams.push_back(std::move(a));
    }
    return m;
}

}  // namespace ladder::mux
