#pragma once
// Reading a track's language tag the same way for audio and subtitles.
#include <algorithm>
#include <cctype>
#include <string>

namespace ladder::engine {

inline std::string lowercase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// A tag that can name a folder as it is: letters, digits and '-'.
inline bool folder_safe_tag(const std::string& s) {
    return !s.empty() && s.size() <= 16 &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; });
}

}  // namespace ladder::engine
