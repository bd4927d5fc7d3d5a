#pragma once
// The value syntax of RFC 8216 §4.2 (attribute lists, decimal integers and
// floats, resolutions), shared by the playlist writer and reader so that
// what one writes the other accepts. Errors are PlaylistError with a bare
// message; the reader adds the origin and line.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mux/hls_playlist.hpp"

namespace ladder::mux::hls_syntax {

// [A-Z0-9-]+
bool is_attribute_name(std::string_view s);
// Fits between double quotes: no '"', CR or LF.
bool is_quotable(std::string_view s);
// An unquoted value: not empty, no '"', ',' or whitespace.
bool is_unquoted_value(std::string_view s);

// [0-9]+ within 0 .. 2^64-1.
std::optional<std::uint64_t> parse_decimal_integer(std::string_view s);
// [0-9]+ optionally followed by '.' and [0-9]* (no sign, no exponent).
std::optional<double> parse_decimal_float(std::string_view s);
// <decimal-integer>x<decimal-integer>
bool is_decimal_resolution(std::string_view s);

// NAME=value,NAME="quoted value",...: names unique, no whitespace. Checks the
// value type of the attributes RFC 8216 defines (BANDWIDTH is an integer,
// CODECS a quoted string, ...); other names pass as they are.
HlsAttributes parse_attribute_list(std::string_view text);

// The inverse of parse_attribute_list; throws PlaylistError for a name or
// value that would not read back the same, or that parse_attribute_list
// would refuse (a quoted BANDWIDTH, say).
std::string format_attribute_list(const HlsAttributes& attributes);

// s in an error message: at most max bytes of it (a fuzzed line can be
// megabytes long), escaped as a C string would be, without the quotes.
inline constexpr std::size_t kExcerptBytes = 40;
std::string excerpt(std::string_view s, std::size_t max = kExcerptBytes);

}  // namespace ladder::mux::hls_syntax
