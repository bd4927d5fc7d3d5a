#pragma once
// What the HLS and DASH checks of `ladder validate` share: how far a
// declared bandwidth may be from the measured one, and how a URI or value
// from a file, or why it is not followed, appears in a problem line (short
// and escaped).
#include <string>
#include <string_view>

#include "engine/check/ladder_path.hpp"
#include "mux/hls_syntax.hpp"

namespace ladder::engine {

inline constexpr double kBandwidthTolerance = 0.10;

// URIs are names, longer than the excerpts of other content: a rung name
// alone may have 64 characters.
inline std::string shown_in_problem(std::string_view text) { return mux::hls_syntax::excerpt(text, 100); }

// Why a URI or BaseURL is not followed, in the words after it; a URL is
// told that validate checks local ladders only.
inline std::string refusal_in_words(UriRefusal refusal) {
    return describe(refusal, refusal == UriRefusal::url ? "ladder validate checks local ladders only" : "");
}

}  // namespace ladder::engine
