#pragma once
// Reading a track's language tag the same way for audio and subtitles.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

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

// "eng,fra" -> {"eng", "fra"}; empty items are kept (the caller refuses them).
inline std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        out.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

// Every item a language-like tag: letters, digits and '-'.
inline bool all_tags(const std::vector<std::string>& items) {
    return !items.empty() && std::all_of(items.begin(), items.end(), [](const std::string& l) {
        return !l.empty() &&
               std::all_of(l.begin(), l.end(), [](unsigned char ch) { return std::isalnum(ch) || ch == '-'; });
    });
}

}  // namespace ladder::engine
