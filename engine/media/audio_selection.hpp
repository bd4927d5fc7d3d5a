#pragma once
// Which of the source's audio streams become renditions, and how: every
// selected stream gets a stereo AAC rendition (mono stays mono), and a
// stream with more than two channels also a 5.1 one, as Apple's HLS
// authoring specification groups them. The source's default stream comes
// first. Decided once, from the probe, for `encode`, `plan` and `stitch`.
#include <string>
#include <vector>

namespace ladder::engine {

// One audio stream of the source, as probed.
struct SourceAudioStream {
    int stream = -1;               // index in the container
    int ordinal = 0;               // 1-based among the audio streams, as players number tracks
    std::string language = "und";  // the container's tag (ISO 639-2), "und" when there is none
    std::string title;             // the container's title tag, may be empty
    bool is_default = false;       // the container's default disposition
    int channels = 0;
    int sample_rate = 0;  // the source's; 0 when the container does not say
    std::string codec_name;
    bool decodable = false;  // a decoder exists and channels and sample rate are known
};

// --audio: "none", "aac" (every stream) or "aac:eng,fra" (these languages).
struct AudioChoice {
    bool enabled = true;
    std::vector<std::string> languages;  // empty: every stream

    std::string to_string() const;
    bool operator==(const AudioChoice&) const = default;
};

// Throws InputError naming what is accepted.
AudioChoice parse_audio_choice(const std::string& text);

struct AudioRenditionSpec {
    int source_stream = -1;
    int ordinal = 0;
    std::string id;  // its folder under OUTDIR/audio/: "aac" for the default stream's stereo
    std::string language;
    std::string name;  // HLS NAME: the title, else the language, "5.1" added for a surround rendition
    bool is_default = false;  // from the source's default stream (the first one when none is marked)
    int channels = 2;         // 1, 2 or 6
    int sample_rate = 0;      // the AAC output's (aac_sample_rate); 0 when the source's is unknown
    bool surround() const { return channels > 2; }
};

struct AudioSelection {
    std::vector<AudioRenditionSpec> renditions;  // the default stream's first
    std::vector<std::string> notes;              // what was left out, and why (info for the user)
};

// The rate an AAC rendition of a source_rate source is encoded at: the
// source's when AAC has it (7350 to 96000 Hz), else 48000.
int aac_sample_rate(int source_rate);

// Throws InputError when languages were asked for and no stream has any of
// them (the message lists the languages the source has).
AudioSelection select_audio(const std::vector<SourceAudioStream>& streams, const AudioChoice& choice,
                            const std::string& source_path);

}  // namespace ladder::engine
