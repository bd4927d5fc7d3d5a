#pragma once
// `ladder validate`'s check of OUTDIR/manifest.mpd, when there is one: the
// MPD parses (a real XML parser), every init and media segment its
// SegmentTemplates name exists inside the ladder, each Representation's
// timeline has one entry per segment of the HLS playlist in the same folder
// and each duration matches that segment's within a frame, @codecs matches
// the init segment's av1C, @bandwidth is within 10% of what the segments
// measure (as HLS's BANDWIDTH, for the track alone), and the video
// Representations' segment boundaries line up. Problems start with
// "manifest.mpd".
#include <filesystem>
#include <string>
#include <vector>

namespace ladder::engine {

// Appends problems; returns the media segments checked (0 without an MPD).
int validate_dash_manifest(const std::filesystem::path& outdir, std::vector<std::string>& problems);

}  // namespace ladder::engine
