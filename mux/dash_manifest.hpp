#pragma once
// The DASH manifest ladder writes next to the HLS master playlist, over the
// same CMAF init and media segments (ISO/IEC 23009-1, static MPD, live
// profile with the CMAF profile): one video AdaptationSet with one
// Representation per rung and an audio AdaptationSet per audio rendition
// (one per language and channel layout: lang, Role main on the default
// track's, AudioChannelConfiguration, a Label with its name), and a text
// AdaptationSet per subtitle rendition over its whole WebVTT file (BaseURL). Each Representation has a SegmentTemplate over its
// folder's seg_NNNNN.m4s (numbered from 1) with a SegmentTimeline of the
// segments' real start times and durations.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ladder::mux {

// The descriptors (SupplementalProperty schemeIdUri, ISO/IEC 23001-8 code
// points) of the video's colour description: written here, compared with
// each init segment's av1C by `ladder validate`.
inline constexpr const char* kCicpColourPrimaries = "urn:mpeg:mpegB:cicp:ColourPrimaries";
inline constexpr const char* kCicpTransferCharacteristics = "urn:mpeg:mpegB:cicp:TransferCharacteristics";
inline constexpr const char* kCicpMatrixCoefficients = "urn:mpeg:mpegB:cicp:MatrixCoefficients";

// Segment times in units of 1/timescale seconds.
struct DashTimeline {
    std::int64_t timescale = 1;
    struct Segment {
        std::int64_t start = 0;
        std::int64_t duration = 0;
    };
    std::vector<Segment> segments;
};

struct DashVideoRepresentation {
    std::string id;         // the rung's name
    std::string folder;     // "720p": init.mp4 and seg_NNNNN.m4s in it, relative to the MPD
    std::uint64_t bandwidth = 0;  // bits/s, as HLS's BANDWIDTH of the video alone
    std::string codecs;     // av01....
    int width = 0;
    int height = 0;
    int frame_rate_num = 25;
    int frame_rate_den = 1;
    DashTimeline timeline;
};

struct DashAudioRepresentation {
    std::string id;
    std::string folder;     // "audio/aac"
    std::string language;   // ISO 639 / BCP 47; "und" when unknown
    std::string label;      // shown to viewers
    bool is_default = false;
    std::uint64_t bandwidth = 0;
    std::string codecs = "mp4a.40.2";
    int sample_rate = 48000;
    int channels = 2;
    DashTimeline timeline;
};

struct DashTextRepresentation {
    std::string id;
    std::string file;  // "subtitles/eng/subtitles.vtt", relative to the MPD
    std::string language;
    std::string label;
    bool is_forced = false;
    std::uint64_t bandwidth = 0;
};

struct DashManifest {
    double duration_seconds = 0;  // mediaPresentationDuration
    double max_segment_seconds = 0;
    // The video's colour description (ISO/IEC 23091-2 code points, as in
    // the AV1 sequence header): SupplementalProperty elements of the video
    // AdaptationSet (urn:mpeg:mpegB:cicp:...), so that players know PQ
    // (16) and HLG (18) from SDR; 0 = leave out.
    int colour_primaries = 0;
    int transfer_characteristics = 0;
    int matrix_coefficients = 0;
    std::vector<DashVideoRepresentation> video;
    std::vector<DashAudioRepresentation> audio;
    std::vector<DashTextRepresentation> text;
};

// The MPD as XML text. Throws std::invalid_argument for a manifest without
// video or a representation without segments.
std::string render_dash_manifest(const DashManifest& manifest);

// "PT1M2.500S"-style xs:duration for a non-negative number of seconds.
std::string dash_duration(double seconds);

}  // namespace ladder::mux
