#include "mux/hls_master_builder.hpp"

#include <fmt/format.h>

#include <algorithm>

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

namespace {

struct AudioGroup {
    std::string id;
    std::vector<const AudioRenditionSummary*> members;
    std::uint64_t peak = 0;  // the largest member's, as a variant played with any of them needs
    std::uint64_t average = 0;
};

// The stereo group, and the 5.1 group when any track has 5.1: each track
// once, its 5.1 rendition where it has one.
std::vector<AudioGroup> audio_groups(const std::vector<AudioRenditionSummary>& audio) {
    std::vector<AudioGroup> groups;
    if (audio.empty()) return groups;
    AudioGroup stereo{kStereoAudioGroup, {}, 0, 0};
    for (const auto& a : audio)
        if (a.channels <= 2) stereo.members.push_back(&a);
    groups.push_back(std::move(stereo));
    const bool surround = std::any_of(audio.begin(), audio.end(), [](const auto& a) { return a.channels > 2; });
    if (surround) {
        AudioGroup g{kSurroundAudioGroup, {}, 0, 0};
        for (const auto* s : groups.front().members) {
            auto wide = std::find_if(audio.begin(), audio.end(),
                                     [&](const auto& a) { return a.track == s->track && a.channels > 2; });
            g.members.push_back(wide != audio.end() ? &*wide : s);
        }
        groups.push_back(std::move(g));
    }
    for (auto& g : groups)
        for (const auto* m : g.members) {
            g.peak = std::max(g.peak, peak_bandwidth(m->segments, target_of(m->segments)));
            g.average = std::max(g.average, average_bandwidth(m->segments));
        }
    return groups;
}

HlsAttributes audio_media(const AudioGroup& group, const AudioRenditionSummary& a) {
    HlsAttributes m;
    m.set("TYPE", "AUDIO", false);
    m.set("GROUP-ID", group.id, true);
    m.set("NAME", a.name, true);
    m.set("LANGUAGE", a.language, true);
    m.set("DEFAULT", a.is_default ? "YES" : "NO", false);
    m.set("AUTOSELECT", "YES", false);
    m.set("CHANNELS", std::to_string(a.channels), true);
    m.set("URI", a.uri, true);
    return m;
}

HlsAttributes subtitle_media(const SubtitleRenditionSummary& s) {
    HlsAttributes m;
    m.set("TYPE", "SUBTITLES", false);
    m.set("GROUP-ID", kSubtitleGroup, true);
    m.set("NAME", s.name, true);
    m.set("LANGUAGE", s.language, true);
    m.set("DEFAULT", s.is_default ? "YES" : "NO", false);
    m.set("AUTOSELECT", "YES", false);  // RFC 8216: FORCED=YES needs AUTOSELECT=YES
    m.set("FORCED", s.is_forced ? "YES" : "NO", false);
    m.set("URI", s.uri, true);
    return m;
}

HlsAttributes variant(const VideoRenditionSummary& v, const AudioGroup* audio, bool subtitles) {
    HlsAttributes a;
    // A variant's numbers include the audio it is played with (RFC 8216 §4.3.4.2).
    const std::uint64_t peak = peak_bandwidth(v.segments, target_of(v.segments)) + (audio ? audio->peak : 0);
    a.set("BANDWIDTH", std::to_string(peak), false);
    a.set("AVERAGE-BANDWIDTH", std::to_string(average_bandwidth(v.segments) + (audio ? audio->average : 0)), false);
    a.set("CODECS", audio ? v.codecs + "," + audio->members.front()->codecs : v.codecs, true);
    a.set("RESOLUTION", fmt::format("{}x{}", v.width, v.height), false);
    a.set("FRAME-RATE", fmt::format("{:.3f}", v.frame_rate), false);
    a.set("VIDEO-RANGE", v.video_range, false);
    if (audio) a.set("AUDIO", audio->id, true);
    if (subtitles) a.set("SUBTITLES", kSubtitleGroup, true);
    // ladder's AV1 carries no closed captions (nothing of the source's
    // CEA-608/708 is encoded): NONE tells players not to look for them in
    // the video (Shaka otherwise parses every sample for CEA-608 and warns
    // that it cannot). RFC 8216 §4.3.4.2: then every variant says NONE.
    a.set("CLOSED-CAPTIONS", "NONE", false);
    return a;
}

}  // namespace

MasterPlaylist build_master_playlist(const std::vector<VideoRenditionSummary>& video,
                                     const std::vector<AudioRenditionSummary>& audio,
                                     const std::vector<SubtitleRenditionSummary>& subtitles) {
    MasterPlaylist m;
    m.version = 7;
    m.independent_segments = true;
    const std::vector<AudioGroup> groups = audio_groups(audio);
    for (const auto& g : groups)
        for (const auto* a : g.members) m.media.push_back(audio_media(g, *a));
    for (const auto& s : subtitles) m.media.push_back(subtitle_media(s));
    const bool subs = !subtitles.empty();
    if (groups.empty())
        for (const auto& v : video) m.variants.push_back({variant(v, nullptr, subs), v.uri});
    for (const auto& g : groups)
        for (const auto& v : video) m.variants.push_back({variant(v, &g, subs), v.uri});
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
