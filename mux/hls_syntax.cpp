#include "mux/hls_syntax.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <unordered_set>

namespace ladder::mux {

// The attribute list model lives in hls_playlist.hpp; its lookups are here
// with the rest of the attribute list code.
const HlsAttribute* HlsAttributes::find(const std::string& name) const {
    const auto it = std::find_if(items.begin(), items.end(), [&](const HlsAttribute& a) { return a.name == name; });
    return it == items.end() ? nullptr : &*it;
}

std::optional<std::string> HlsAttributes::get(const std::string& name) const {
    const HlsAttribute* a = find(name);
    if (!a) return std::nullopt;
    return a->value;
}

void HlsAttributes::set(const std::string& name, std::string value, bool quoted) {
    auto it = std::find_if(items.begin(), items.end(), [&](const HlsAttribute& a) { return a.name == name; });
    if (it == items.end()) {
        items.push_back(HlsAttribute{name, std::move(value), quoted});
    } else {
        it->value = std::move(value);
        it->quoted = quoted;
    }
}

namespace hls_syntax {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

enum class Kind { integer, floating, resolution, quoted, enumerated, quoted_or_none };

struct KnownAttribute {
    std::string_view name;
    Kind kind;
};

// RFC 8216 §4.3.4 (and the later draft's additions ladder may meet).
constexpr std::array kKnown = {
    KnownAttribute{"BANDWIDTH", Kind::integer},
    KnownAttribute{"AVERAGE-BANDWIDTH", Kind::integer},
    KnownAttribute{"FRAME-RATE", Kind::floating},
    KnownAttribute{"SCORE", Kind::floating},
    KnownAttribute{"RESOLUTION", Kind::resolution},
    KnownAttribute{"CODECS", Kind::quoted},
    KnownAttribute{"SUPPLEMENTAL-CODECS", Kind::quoted},
    KnownAttribute{"URI", Kind::quoted},
    KnownAttribute{"BYTERANGE", Kind::quoted},  // EXT-X-MAP
    KnownAttribute{"AUDIO", Kind::quoted},
    KnownAttribute{"VIDEO", Kind::quoted},
    KnownAttribute{"SUBTITLES", Kind::quoted},
    KnownAttribute{"GROUP-ID", Kind::quoted},
    KnownAttribute{"NAME", Kind::quoted},
    KnownAttribute{"LANGUAGE", Kind::quoted},
    KnownAttribute{"ASSOC-LANGUAGE", Kind::quoted},
    KnownAttribute{"CHANNELS", Kind::quoted},
    KnownAttribute{"INSTREAM-ID", Kind::quoted},
    KnownAttribute{"CHARACTERISTICS", Kind::quoted},
    KnownAttribute{"STABLE-VARIANT-ID", Kind::quoted},
    KnownAttribute{"STABLE-RENDITION-ID", Kind::quoted},
    KnownAttribute{"PATHWAY-ID", Kind::quoted},
    KnownAttribute{"TYPE", Kind::enumerated},
    KnownAttribute{"DEFAULT", Kind::enumerated},
    KnownAttribute{"AUTOSELECT", Kind::enumerated},
    KnownAttribute{"FORCED", Kind::enumerated},
    KnownAttribute{"HDCP-LEVEL", Kind::enumerated},
    KnownAttribute{"VIDEO-RANGE", Kind::enumerated},
    KnownAttribute{"CLOSED-CAPTIONS", Kind::quoted_or_none},
};

void check_type(const HlsAttribute& a) {
    const auto it = std::find_if(kKnown.begin(), kKnown.end(), [&](const KnownAttribute& k) { return k.name == a.name; });
    if (it == kKnown.end()) return;
    const auto value = excerpt(a.value);
    switch (it->kind) {
        case Kind::integer:
            if (a.quoted || !parse_decimal_integer(a.value))
                throw PlaylistError(fmt::format("{} is not a decimal integer: \"{}\"", a.name, value));
            return;
        case Kind::floating:
            if (a.quoted || !parse_decimal_float(a.value))
                throw PlaylistError(fmt::format("{} is not a decimal number: \"{}\"", a.name, value));
            return;
        case Kind::resolution:
            if (a.quoted || !is_decimal_resolution(a.value))
                throw PlaylistError(fmt::format("{} is not a resolution (WIDTHxHEIGHT): \"{}\"", a.name, value));
            return;
        case Kind::quoted:
            if (!a.quoted) throw PlaylistError(fmt::format("{} must be a quoted string, got {}", a.name, value));
            return;
        case Kind::enumerated:
            if (a.quoted) throw PlaylistError(fmt::format("{} must not be quoted, got \"{}\"", a.name, value));
            return;
        case Kind::quoted_or_none:
            if (!a.quoted && a.value != "NONE")
                throw PlaylistError(fmt::format("{} must be a quoted string or NONE, got {}", a.name, value));
            return;
    }
}

}  // namespace

bool is_attribute_name(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-'; });
}

bool is_quotable(std::string_view s) { return s.find_first_of("\"\r\n") == std::string_view::npos; }

bool is_unquoted_value(std::string_view s) {
    return !s.empty() && std::none_of(s.begin(), s.end(), [](char c) { return c == '"' || c == ',' || is_space(c); });
}

std::optional<std::uint64_t> parse_decimal_integer(std::string_view s) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), is_digit)) return std::nullopt;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;  // out of range
    return v;
}

std::optional<double> parse_decimal_float(std::string_view s) {
    // from_chars alone would also take exponents, "inf" and "nan".
    const auto dot = s.find('.');
    const auto whole = s.substr(0, dot);
    const auto fraction = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
    if (whole.empty() || !std::all_of(whole.begin(), whole.end(), is_digit) ||
        !std::all_of(fraction.begin(), fraction.end(), is_digit))
        return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

bool is_decimal_resolution(std::string_view s) {
    const auto x = s.find('x');
    return x != std::string_view::npos && parse_decimal_integer(s.substr(0, x)) &&
           parse_decimal_integer(s.substr(x + 1));
}

HlsAttributes parse_attribute_list(std::string_view text) {
    HlsAttributes out;
    std::unordered_set<std::string_view> seen;  // a hostile line may hold many names
    std::size_t pos = 0;
    const std::size_t n = text.size();
    if (n == 0) throw PlaylistError("malformed attribute list: it is empty");
    for (;;) {
        const std::size_t name_start = pos;
        while (pos < n && text[pos] != '=' && text[pos] != ',') ++pos;
        const std::string_view name = text.substr(name_start, pos - name_start);
        if (!is_attribute_name(name))
            throw PlaylistError(
                fmt::format("malformed attribute list: \"{}\" is not an attribute name (A-Z, 0-9, '-')", excerpt(name)));
        if (pos == n || text[pos] != '=')
            throw PlaylistError(fmt::format("malformed attribute list: {} has no '=' and value", name));
        ++pos;

        HlsAttribute attribute{std::string(name), {}, false};
        if (pos < n && text[pos] == '"') {
            const std::size_t close = text.find('"', pos + 1);
            if (close == std::string_view::npos)
                throw PlaylistError(fmt::format("malformed attribute list: the quoted value of {} is not closed", name));
            const std::string_view value = text.substr(pos + 1, close - pos - 1);
            if (!is_quotable(value))
                throw PlaylistError(fmt::format("malformed attribute list: the quoted value of {} holds a CR", name));
            attribute.value = std::string(value);
            attribute.quoted = true;
            pos = close + 1;
        } else {
            const std::size_t value_start = pos;
            while (pos < n && text[pos] != ',') ++pos;
            const std::string_view value = text.substr(value_start, pos - value_start);
            if (value.empty()) throw PlaylistError(fmt::format("malformed attribute list: {} has an empty value", name));
            if (!is_unquoted_value(value))
                throw PlaylistError(fmt::format(
                    "malformed attribute list: the value of {} holds a quote or whitespace: {}", name, excerpt(value)));
            attribute.value = std::string(value);
        }
        if (!seen.insert(name).second)
            throw PlaylistError(fmt::format("malformed attribute list: {} appears more than once", name));
        check_type(attribute);
        out.items.push_back(std::move(attribute));

        if (pos == n) return out;
        if (text[pos] != ',')
            throw PlaylistError(fmt::format("malformed attribute list: expected ',' after the value of {}, got '{}'",
                                            name, excerpt(text.substr(pos, 1))));
        ++pos;
        if (pos == n) throw PlaylistError("malformed attribute list: it ends with a comma");
    }
}

std::string format_attribute_list(const HlsAttributes& attributes) {
    std::string out;
    for (const auto& a : attributes.items) {
        if (!is_attribute_name(a.name))
            throw PlaylistError(fmt::format("cannot write attribute \"{}\": names are A-Z, 0-9 and '-'", excerpt(a.name)));
        if (a.quoted ? !is_quotable(a.value) : !is_unquoted_value(a.value))
            throw PlaylistError(fmt::format("cannot write {}={}{}{}: {}", a.name, a.quoted ? "\"" : "", excerpt(a.value),
                                            a.quoted ? "\"" : "",
                                            a.quoted ? "a quoted string cannot hold '\"', CR or LF"
                                                     : "an unquoted value must be non-empty without ',', '\"' or "
                                                       "whitespace"));
        try {
            check_type(a);
        } catch (const PlaylistError& e) {
            throw PlaylistError(fmt::format("cannot write an attribute list: {}", e.what()));
        }
        if (!out.empty()) out += ',';
        out += a.name;
        out += '=';
        if (a.quoted) out += '"';
        out += a.value;
        if (a.quoted) out += '"';
    }
    return out;
}

std::string excerpt(std::string_view s, std::size_t max) {
    // fmt's debug form escapes what a terminal or a log could act on:
    // control bytes, quotes, backslashes, bytes that are not UTF-8.
    const std::string quoted = fmt::format("{:?}", s.substr(0, max));
    std::string out = quoted.substr(1, quoted.size() - 2);
    if (s.size() > max) out += "...";
    return out;
}

}  // namespace hls_syntax
}  // namespace ladder::mux
