#pragma once
// The names viewers see for audio and subtitle renditions (HLS NAME, DASH
// Label, the MP4 track's title) come from the source's metadata, which may
// hold anything: quotes, line breaks, control bytes, bytes that are not
// UTF-8, a paragraph. An HLS quoted string holds no '"', CR or LF and a
// playlist no control characters (RFC 8216 §4.1, §4.2); XML 1.0 has no
// place for most control characters either. A run never fails on such a
// name: it is made into one every output can carry.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::engine {

// Longer names are cut (at a character, with "…"): a player's menu shows a
// line, not a paragraph.
inline constexpr std::size_t kMaxTrackNameBytes = 128;

// The metadata text as a name: valid UTF-8 (each invalid sequence becomes
// U+FFFD), no control characters (C0, DEL, C1: white space among them
// becomes a space, the rest goes), '"' turned into '\'', runs of spaces as
// one, none at either end, at most kMaxTrackNameBytes. May be empty.
std::string track_name(std::string_view metadata_text);

// `name`, or, when an earlier rendition already has it, the name with
// " (track N)" (N: the source track's number) and then a counter: players
// tell the renditions of a group apart by name.
std::string unique_track_name(const std::string& name, int ordinal, const std::vector<std::string>& taken);

}  // namespace ladder::engine
