#pragma once
// WebVTT text written by FFmpeg's webvtt muxer: the whole track for DASH,
// or one HLS segment with the X-TIMESTAMP-MAP header that ties cue time 0
// to media time 0 (the CMAF tracks start at 0).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::mux {

struct WebVttCue {
    std::int64_t start_ms = 0;  // on the output's timeline (0 = the first video frame)
    std::int64_t end_ms = 0;
    std::string text;  // the cue payload, WebVTT markup (webvtt_cue_payload)
};

// A WebVTT encoder's cue text as a valid cue payload (W3C WebVTT, "cue text"):
// FFmpeg's webvtt encoder writes the text between its tags as it is, so here
// an '&' that starts no character reference becomes "&amp;", a '<' that
// starts no cue tag "&lt;", a '>' outside a tag "&gt;" (no "-->" is left,
// which would start a timing line), line breaks are LF, a blank line inside
// the cue (which would end it) holds "&nbsp;", and blank lines at either end
// go. Empty when nothing is left.
std::string webvtt_cue_payload(std::string_view text);

std::string render_webvtt(const std::vector<WebVttCue>& cues, bool hls_timestamp_map);

// The cues that show during [start_ms, end_ms): a cue spanning a segment
// boundary goes into every segment it overlaps, as HLS asks.
std::vector<WebVttCue> cues_between(const std::vector<WebVttCue>& cues, std::int64_t start_ms, std::int64_t end_ms);

}  // namespace ladder::mux
