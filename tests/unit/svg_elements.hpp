#pragma once
// Reads elements back out of the SVG `ladder report` writes, by regex: its
// elements are one per line with double-quoted attributes, which is all these
// tests rely on. Attribute values and texts stay escaped as written.
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace ladder::test {

using Attributes = std::map<std::string, std::string>;

// The attributes of every <tag class="cls" ...> start tag, in document order.
inline std::vector<Attributes> elements_of_class(const std::string& svg, const std::string& tag,
                                                 const std::string& cls) {
    std::vector<Attributes> out;
    const std::regex element("<" + tag + " class=\"" + cls + "\"([^>]*)>");
    const std::regex attribute("([a-zA-Z][a-zA-Z0-9-]*)=\"([^\"]*)\"");
    for (auto e = std::sregex_iterator(svg.begin(), svg.end(), element); e != std::sregex_iterator(); ++e) {
        Attributes attrs{{"class", cls}};
        const std::string rest = (*e)[1].str();
        for (auto a = std::sregex_iterator(rest.begin(), rest.end(), attribute); a != std::sregex_iterator(); ++a)
            attrs[(*a)[1].str()] = (*a)[2].str();
        out.push_back(std::move(attrs));
    }
    return out;
}

// The content of every <text class="cls" ...>CONTENT</text>, in order.
inline std::vector<std::string> texts_of_class(const std::string& svg, const std::string& cls) {
    std::vector<std::string> out;
    const std::regex text("<text class=\"" + cls + "\"[^>]*>([^<]*)</text>");
    for (auto t = std::sregex_iterator(svg.begin(), svg.end(), text); t != std::sregex_iterator(); ++t)
        out.push_back((*t)[1].str());
    return out;
}

inline std::size_t count_of(const std::string& haystack, const std::string& needle) {
    std::size_t n = 0;
    for (auto pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
    return n;
}

}  // namespace ladder::test
