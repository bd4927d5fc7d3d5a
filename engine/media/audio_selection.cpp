#include "engine/media/audio_selection.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "engine/base/errors.hpp"
#include "engine/media/track_names.hpp"
#include "engine/media/track_tags.hpp"

namespace ladder::engine {

namespace {

bool wanted(const SourceAudioStream& s, const AudioChoice& choice) {
    if (choice.languages.empty()) return true;
    const std::string lang = lowercase(s.language);
    return std::any_of(choice.languages.begin(), choice.languages.end(),
                       [&](const std::string& l) { return lowercase(l) == lang; });
}

std::string describe(const SourceAudioStream& s) {
    return fmt::format("track {} (stream #{}, {}, {} ch)", s.ordinal, s.stream, s.language, s.channels);
}

// The default stream first, the others in the file's order.
std::vector<SourceAudioStream> in_rendition_order(std::vector<SourceAudioStream> kept) {
    auto def = std::find_if(kept.begin(), kept.end(), [](const SourceAudioStream& s) { return s.is_default; });
    if (def != kept.end()) std::rotate(kept.begin(), def, def + 1);
    return kept;
}

std::string base_id(const SourceAudioStream& s, bool first, const std::vector<SourceAudioStream>& kept) {
    if (first) return "aac";
    const bool unique_language =
        std::count_if(kept.begin(), kept.end(), [&](const SourceAudioStream& o) { return o.language == s.language; }) ==
        1;
    if (unique_language && s.language != "und" && folder_safe_tag(s.language)) return "aac_" + lowercase(s.language);
    return fmt::format("aac_track{}", s.ordinal);
}

// What a stream is called: its title, else its language tag, else "Audio";
// made fit for every output (engine/media/track_names.hpp).
std::string label_of(const SourceAudioStream& s) {
    if (std::string title = track_name(s.title); !title.empty()) return title;
    if (std::string language = track_name(s.language); !language.empty() && language != "und") return language;
    return "Audio";
}

std::string base_name(const SourceAudioStream& s, const std::vector<SourceAudioStream>& kept) {
    const std::string name = label_of(s);
    const bool shared =
        std::count_if(kept.begin(), kept.end(), [&](const SourceAudioStream& o) { return label_of(o) == name; }) > 1;
    return shared ? fmt::format("{} (track {})", name, s.ordinal) : name;
}

std::vector<std::string> names_of(const std::vector<AudioRenditionSpec>& renditions) {
    std::vector<std::string> names;
    for (const auto& r : renditions) names.push_back(r.name);
    return names;
}

}  // namespace

std::string AudioChoice::to_string() const {
    if (!enabled) return "none";
    if (languages.empty()) return "aac";
    return fmt::format("aac:{}", fmt::join(languages, ","));
}

AudioChoice parse_audio_choice(const std::string& text) {
    AudioChoice c;
    if (text == "none") {
        c.enabled = false;
        return c;
    }
    if (text == "aac") return c;
    const std::string prefix = "aac:";
    if (text.rfind(prefix, 0) == 0) {
        c.languages = split_commas(text.substr(prefix.size()));
        if (all_tags(c.languages)) return c;
    }
    throw InputError(fmt::format("--audio {}: expected aac (every audio track), aac:LANG[,LANG...] (these languages, "
                                 "as the file tags them, e.g. aac:eng,fra) or none",
                                 text));
}

int aac_sample_rate(int source_rate) {
    static constexpr std::array<int, 13> rates{96000, 88200, 64000, 48000, 44100, 32000, 24000,
                                               22050, 16000, 12000, 11025, 8000,  7350};
    return std::find(rates.begin(), rates.end(), source_rate) != rates.end() ? source_rate : 48000;
}

AudioSelection select_audio(const std::vector<SourceAudioStream>& streams, const AudioChoice& choice,
                            const std::string& source_path) {
    AudioSelection out;
    if (!choice.enabled) return out;
    std::vector<SourceAudioStream> kept;
    for (const auto& s : streams) {
        if (!s.decodable) {
            out.notes.push_back(fmt::format("input {}: audio {} ({}) cannot be decoded by this FFmpeg build: left out",
                                            source_path, describe(s), s.codec_name));
        } else if (!wanted(s, choice)) {
            out.notes.push_back(fmt::format("input {}: audio {} is not in --audio {}: left out", source_path,
                                            describe(s), choice.to_string()));
        } else {
            kept.push_back(s);
        }
    }
    for (const auto& lang : choice.languages)
        if (std::none_of(kept.begin(), kept.end(), [&](const SourceAudioStream& s) { return lowercase(s.language) == lowercase(lang); }))
            out.notes.push_back(fmt::format("input {}: no audio track in language {}", source_path, lang));
    if (kept.empty() && !choice.languages.empty() && !streams.empty()) {
        std::vector<std::string> present;
        for (const auto& s : streams) present.push_back(s.language);
        throw InputError(fmt::format("input {} has no audio track in {} (its audio tracks are tagged {}): pass "
                                     "--audio aac for every track, --audio aac:LANG with one of those, or --audio none",
                                     source_path, fmt::join(choice.languages, ", "), fmt::join(present, ", ")));
    }
    kept = in_rendition_order(std::move(kept));
    for (std::size_t i = 0; i < kept.size(); ++i) {
        const SourceAudioStream& s = kept[i];
        AudioRenditionSpec stereo;
        stereo.source_stream = s.stream;
        stereo.ordinal = s.ordinal;
        stereo.id = base_id(s, i == 0, kept);
        stereo.language = s.language.empty() ? "und" : s.language;
        // Unique among all renditions, so within each group too.
        stereo.name = unique_track_name(base_name(s, kept), s.ordinal, names_of(out.renditions));
        stereo.is_default = i == 0;
        stereo.channels = std::min(2, s.channels);
        stereo.sample_rate = s.sample_rate > 0 ? aac_sample_rate(s.sample_rate) : 0;
        out.renditions.push_back(stereo);
        if (s.channels > 2) {
            AudioRenditionSpec surround = stereo;
            surround.id += "_51";
            surround.name = unique_track_name(stereo.name + " 5.1", s.ordinal, names_of(out.renditions));
            surround.channels = 6;
            out.renditions.push_back(std::move(surround));
        }
    }
    return out;
}

}  // namespace ladder::engine
