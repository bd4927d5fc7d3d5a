#include "engine/media/subtitle_selection.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "engine/base/errors.hpp"
#include "engine/media/track_names.hpp"
#include "engine/media/track_tags.hpp"

namespace ladder::engine {

namespace {

std::string describe(const SourceSubtitleStream& s) {
    return fmt::format("subtitle track {} (stream #{}, {}, {})", s.ordinal, s.stream, s.language, s.codec_name);
}

// What a track is called: its title, else its language tag, else
// "Subtitles N"; made fit for every output (engine/media/track_names.hpp).
std::string label_of(const SourceSubtitleStream& s) {
    if (std::string title = track_name(s.title); !title.empty()) return title;
    if (std::string language = track_name(s.language); !language.empty() && language != "und") return language;
    return fmt::format("Subtitles {}", s.ordinal);
}

std::vector<std::string> names_of(const std::vector<SubtitleRenditionSpec>& renditions) {
    std::vector<std::string> names;
    for (const auto& r : renditions) names.push_back(r.name);
    return names;
}

}  // namespace

std::string SubtitleChoice::to_string() const {
    if (!enabled) return "none";
    if (languages.empty()) return "all";
    return fmt::format("{}", fmt::join(languages, ","));
}

SubtitleChoice parse_subtitle_choice(const std::string& text) {
    SubtitleChoice c;
    if (text == "all") return c;
    if (text == "none") {
        c.enabled = false;
        return c;
    }
    c.languages = split_commas(text);
    if (!all_tags(c.languages))
        throw InputError(fmt::format("--subtitles {}: expected all, none or languages as the file tags them, separated "
                                     "by commas (e.g. eng,fra)",
                                     text));
    return c;
}

SubtitleSelection select_subtitles(const std::vector<SourceSubtitleStream>& streams, const SubtitleChoice& choice,
                                   const std::string& source_path) {
    SubtitleSelection out;
    if (!choice.enabled) return out;
    const auto wanted = [&](const SourceSubtitleStream& s) {
        return choice.languages.empty() ||
               std::any_of(choice.languages.begin(), choice.languages.end(),
                           [&](const std::string& l) { return lowercase(l) == lowercase(s.language); });
    };
    std::vector<SourceSubtitleStream> kept;
    for (const auto& s : streams) {
        if (!wanted(s))
            out.notes.push_back(fmt::format("input {}: {} is not in --subtitles {}: left out", source_path, describe(s),
                                            choice.to_string()));
        else if (!s.text)
            out.warnings.push_back(fmt::format("input {}: {} is a picture-based subtitle: skipped (ladder converts "
                                               "text subtitles to WebVTT; OCR it to SubRip to keep it)",
                                               source_path, describe(s)));
        else if (!s.decodable)
            out.warnings.push_back(fmt::format("input {}: {} cannot be decoded by this FFmpeg build: skipped",
                                               source_path, describe(s)));
        else
            kept.push_back(s);
    }
    for (const auto& lang : choice.languages)
        if (std::none_of(streams.begin(), streams.end(),
                         [&](const SourceSubtitleStream& s) { return lowercase(s.language) == lowercase(lang); }))
            out.notes.push_back(fmt::format("input {}: no subtitle track in language {}", source_path, lang));
    if (kept.empty() && !choice.languages.empty() && !streams.empty() && out.warnings.empty()) {
        std::vector<std::string> present;
        for (const auto& s : streams) present.push_back(s.language);
        throw InputError(fmt::format("input {} has no subtitle track in {} (its subtitle tracks are tagged {}): pass "
                                     "--subtitles all, --subtitles LANG with one of those, or --subtitles none",
                                     source_path, fmt::join(choice.languages, ", "), fmt::join(present, ", ")));
    }
    for (const auto& s : kept) {
        SubtitleRenditionSpec r;
        r.source_stream = s.stream;
        r.ordinal = s.ordinal;
        const bool unique_language =
            std::count_if(kept.begin(), kept.end(), [&](const auto& o) { return lowercase(o.language) == lowercase(s.language); }) == 1;
        r.id = unique_language && s.language != "und" && folder_safe_tag(s.language) ? lowercase(s.language)
                                                                                  : fmt::format("track{}", s.ordinal);
        r.language = s.language;
        r.is_default = s.is_default;
        r.is_forced = s.is_forced;
        // NAME tells renditions of one group apart.
        r.name = unique_track_name(label_of(s), s.ordinal, names_of(out.renditions));
        out.renditions.push_back(std::move(r));
    }
    // HLS allows one DEFAULT=YES per group: the first marked one keeps it.
    bool seen_default = false;
    for (auto& r : out.renditions) {
        if (r.is_default && seen_default) r.is_default = false;
        seen_default = seen_default || r.is_default;
    }
    return out;
}

}  // namespace ladder::engine
