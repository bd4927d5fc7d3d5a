#pragma once
// `ladder validate`'s check of OUTDIR/manifest.mpd, when there is one: the
// MPD parses (a real XML parser), every BaseURL (MPD, Period, AdaptationSet,
// Representation) and Location leads inside the ladder (one that does not is
// named, and nothing below it is read), every init and media segment its
// SegmentTemplates name exists inside the ladder (BaseURLs applied, RFC
// 3986), each once, each Representation's timeline has one entry per segment
// of the HLS playlist in the same folder and each duration matches that
// segment's within a frame, never goes back, and each S starts and lasts
// what its segment's samples play (tfdt and trun, after the init segment's
// edit list: engine/check/segment_timing.hpp), @codecs and the cicp descriptors
// match the init segment's av1C, @bandwidth is within 10% of what the
// segments measure (as HLS's BANDWIDTH, for the track alone), the video
// Representations' segment boundaries line up, and the audio starts and
// ends with the video. Repeat counts and Representations are believed
// only as far as the files on disk can hold them. Problems start with
// "manifest.mpd".
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/check/ladder_path.hpp"

namespace ladder::engine {

// What the HLS checks found that the DASH checks use, so that they neither
// read a playlist again nor report a problem twice.
struct HlsFindings {
    // Init segments whose av1C fields and colr boxes were compared with
    // their sequence header.
    std::set<FileId> inits_compared;
    // Every media playlist read, by file: its EXTINF durations, or nullopt
    // when it was refused (its problem is reported).
    std::map<FileId, std::optional<std::vector<double>>> playlist_durations;
};

// Appends problems; returns the media segments checked (0 without an MPD).
int validate_dash_manifest(const std::filesystem::path& outdir, std::vector<std::string>& problems,
                           HlsFindings hls = {});

}  // namespace ladder::engine
