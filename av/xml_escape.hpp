#pragma once
// Text for XML and HTML documents (the `ladder report` SVG and page):
// libavutil's XML escaping, made safe for any string a report may hold.
#include <string>
#include <string_view>

namespace ladder::av {

// `text` with &, <, >, " and ' replaced by entities, usable in element
// content and in quoted attribute values alike. Control characters XML 1.0
// forbids (all below U+0020 but tab, newline and carriage return, NUL
// included) become U+FFFD, so the result always parses. Expects UTF-8.
std::string xml_escape(std::string_view text);

}  // namespace ladder::av
