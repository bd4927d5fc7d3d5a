#pragma once
// Which of the source's subtitle streams become WebVTT renditions (and
// mov_text tracks in the MP4 outputs). Text subtitles only (SubRip,
// mov_text, ASS/SSA, WebVTT): picture-based ones (PGS, DVB, VobSub) are
// skipped with a warning that names the track.
#include <string>
#include <vector>

namespace ladder::engine {

struct SourceSubtitleStream {
    int stream = -1;
    int ordinal = 0;  // 1-based among the subtitle streams
    std::string language = "und";
    std::string title;
    bool is_default = false;
    bool is_forced = false;
    std::string codec_name;
    bool text = false;       // a text format (AV_CODEC_PROP_TEXT_SUB)
    bool decodable = false;  // FFmpeg has a decoder for it
};

// --subtitles: "all", "none" or a comma list of languages ("eng,fra").
struct SubtitleChoice {
    bool enabled = true;
    std::vector<std::string> languages;  // empty: every text track

    std::string to_string() const;
    bool operator==(const SubtitleChoice&) const = default;
};

// Throws InputError naming what is accepted.
SubtitleChoice parse_subtitle_choice(const std::string& text);

struct SubtitleRenditionSpec {
    int source_stream = -1;
    int ordinal = 0;
    std::string id;  // its folder under OUTDIR/subtitles/: the language, else "track<N>"
    std::string language;
    std::string name;  // the title, else the language
    bool is_default = false;
    bool is_forced = false;
};

struct SubtitleSelection {
    std::vector<SubtitleRenditionSpec> renditions;
    std::vector<std::string> warnings;  // picture-based tracks skipped
    std::vector<std::string> notes;     // tracks left out by --subtitles, languages not found
};

// Throws InputError when languages were asked for and no text subtitle
// track has any of them while the source has subtitle tracks.
SubtitleSelection select_subtitles(const std::vector<SourceSubtitleStream>& streams, const SubtitleChoice& choice,
                                   const std::string& source_path);

}  // namespace ladder::engine
