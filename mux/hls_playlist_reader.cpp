// A line scanner for RFC 8216 playlists: linear in the input, no regexes (a
// fuzzer feeds this parser), every error located at origin:line.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string_view>

#include "mux/hls_playlist.hpp"
#include "mux/hls_syntax.hpp"

namespace ladder::mux {

namespace {

using namespace std::string_view_literals;
namespace syntax = hls_syntax;

// RFC 8216 §4.3.2 and §4.3.3 (plus the later draft's media tags): a playlist
// holding one of these is a media playlist.
constexpr std::array kMediaTags = {
    "EXTINF"sv,
    "EXT-X-BYTERANGE"sv,
    "EXT-X-DISCONTINUITY"sv,
    "EXT-X-KEY"sv,
    "EXT-X-MAP"sv,
    "EXT-X-PROGRAM-DATE-TIME"sv,
    "EXT-X-DATERANGE"sv,
    "EXT-X-GAP"sv,
    "EXT-X-BITRATE"sv,
    "EXT-X-PART"sv,
    "EXT-X-TARGETDURATION"sv,
    "EXT-X-MEDIA-SEQUENCE"sv,
    "EXT-X-DISCONTINUITY-SEQUENCE"sv,
    "EXT-X-ENDLIST"sv,
    "EXT-X-PLAYLIST-TYPE"sv,
    "EXT-X-I-FRAMES-ONLY"sv,
    "EXT-X-PART-INF"sv,
    "EXT-X-SERVER-CONTROL"sv,
    "EXT-X-SKIP"sv,
    "EXT-X-PRELOAD-HINT"sv,
    "EXT-X-RENDITION-REPORT"sv,
};

// RFC 8216 §4.3.4: a playlist holding one of these is a master playlist.
constexpr std::array kMasterTags = {
    "EXT-X-MEDIA"sv,
    "EXT-X-STREAM-INF"sv,
    "EXT-X-I-FRAME-STREAM-INF"sv,
    "EXT-X-SESSION-DATA"sv,
    "EXT-X-SESSION-KEY"sv,
    "EXT-X-CONTENT-STEERING"sv,
};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

struct Line {
    std::string_view text;
    std::size_t number = 0;
};

// Splits on LF; a CR before the LF (CRLF playlists) is not part of the line.
class LineScanner {
public:
    explicit LineScanner(std::string_view text) : rest_(text) {}

    bool next(Line& line) {
        if (done_) return false;
        const std::size_t lf = rest_.find('\n');
        std::string_view text = rest_.substr(0, lf);
        if (lf == std::string_view::npos) {
            done_ = true;
            rest_ = {};
        } else {
            rest_.remove_prefix(lf + 1);
            // "a\n" is one line, not one line and an empty one.
            if (rest_.empty()) done_ = true;
        }
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        line = {text, ++number_};
        return true;
    }

    std::size_t lines_read() const { return number_; }

private:
    std::string_view rest_;
    std::size_t number_ = 0;
    bool done_ = false;
};

struct Tag {
    std::string_view name;   // "EXTINF"
    std::string_view value;  // after the ':'
    bool has_value = false;
};

enum class LineKind { blank, comment, tag, uri };

LineKind classify(std::string_view line) {
    if (line.find_first_not_of(" \t") == std::string_view::npos) return LineKind::blank;
    if (line.front() != '#') return LineKind::uri;
    return line.substr(0, 4) == "#EXT" ? LineKind::tag : LineKind::comment;
}

Tag split_tag(std::string_view line) {
    line.remove_prefix(1);  // '#'
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return {line, {}, false};
    return {line.substr(0, colon), line.substr(colon + 1), true};
}

// Reading state shared by both playlist kinds: where errors point.
class Reader {
public:
    Reader(std::string_view text, const std::string& origin) : scanner_(text), origin_(origin) {
        if (text.empty()) fail(1, "missing #EXTM3U: the playlist is empty");
        Line first;
        scanner_.next(first);
        if (first.text.substr(0, 3) == "\xEF\xBB\xBF")
            fail(1, "missing #EXTM3U: the playlist starts with a byte order mark, which RFC 8216 forbids");
        if (first.text != "#EXTM3U")
            fail(1, fmt::format("missing #EXTM3U: the first line must be exactly #EXTM3U, got \"{}\"",
                                syntax::excerpt(first.text)));
    }

    // RFC 8216 §4.1: lines end in LF or CRLF; a CR anywhere else would end up
    // inside a URI or a value that no writer can reproduce.
    bool next(Line& line) {
        if (!scanner_.next(line)) return false;
        if (line.text.find('\r') != std::string_view::npos)
            fail(line.number, "a carriage return inside a line (lines end in LF or CRLF)");
        return true;
    }
    std::size_t lines_read() const { return scanner_.lines_read(); }

    [[noreturn]] void fail(std::size_t line, std::string_view message) const {
        throw PlaylistError(fmt::format("{}:{}: {}", origin_, line, message));
    }

    HlsAttributes attributes(const Line& line, const Tag& tag) const {
        if (!tag.has_value) fail(line.number, fmt::format("{} needs an attribute list", tag.name));
        try {
            return syntax::parse_attribute_list(tag.value);
        } catch (const PlaylistError& e) {
            fail(line.number, fmt::format("{}: {}", tag.name, e.what()));
        }
    }

    std::uint64_t integer(const Line& line, const Tag& tag, std::uint64_t max) const {
        if (!tag.has_value) fail(line.number, fmt::format("{} needs a value", tag.name));
        const auto v = syntax::parse_decimal_integer(tag.value);
        if (!v) fail(line.number, fmt::format("{} is not a decimal integer: \"{}\"", tag.name, syntax::excerpt(tag.value)));
        if (*v > max) fail(line.number, fmt::format("{} is out of range: {} (at most {})", tag.name, *v, max));
        return *v;
    }

    int version(const Line& line, const Tag& tag) {
        if (seen_version_) fail(line.number, "a second EXT-X-VERSION (RFC 8216 allows one)");
        seen_version_ = true;
        return static_cast<int>(integer(line, tag, std::numeric_limits<int>::max()));
    }

private:
    LineScanner scanner_;
    const std::string& origin_;
    bool seen_version_ = false;
};

void require(const Reader& r, const Line& line, const HlsAttributes& a, std::string_view tag,
             std::initializer_list<const char*> names) {
    for (const char* name : names)
        if (!a.find(name)) r.fail(line.number, fmt::format("{} has no {} attribute (required)", tag, name));
}

// Line numbers start at 1, so line 0 means "nothing pending" (plain fields
// rather than std::optional: GCC 12 warns falsely about optional members).
struct PendingSegment {
    std::size_t line = 0;
    double duration = 0;
};

struct PendingRange {
    std::size_t line = 0;
    std::uint64_t length = 0;
    bool has_offset = false;
    std::uint64_t offset = 0;
};

double extinf_duration(const Reader& r, const Line& line, const Tag& tag) {
    if (!tag.has_value) r.fail(line.number, "EXTINF needs a duration");
    const std::size_t comma = tag.value.find(',');
    if (comma == std::string_view::npos)
        r.fail(line.number, "EXTINF needs a comma after the duration (#EXTINF:<duration>,[<title>])");
    const std::string_view text = tag.value.substr(0, comma);
    const auto d = syntax::parse_decimal_float(text);
    if (!d) r.fail(line.number, fmt::format("EXTINF duration is not a decimal number: \"{}\"", syntax::excerpt(text)));
    return *d;
}

PendingRange byte_range(const Reader& r, const Line& line, const Tag& tag) {
    if (!tag.has_value) r.fail(line.number, "EXT-X-BYTERANGE needs <length>[@<offset>]");
    const std::size_t at = tag.value.find('@');
    const std::string_view length_text = tag.value.substr(0, at);
    PendingRange out{line.number, 0, false, 0};
    const auto length = syntax::parse_decimal_integer(length_text);
    if (!length)
        r.fail(line.number,
               fmt::format("EXT-X-BYTERANGE length is not a decimal integer: \"{}\"", syntax::excerpt(length_text)));
    out.length = *length;
    if (at != std::string_view::npos) {
        const std::string_view offset_text = tag.value.substr(at + 1);
        const auto offset = syntax::parse_decimal_integer(offset_text);
        if (!offset)
            r.fail(line.number,
                   fmt::format("EXT-X-BYTERANGE offset is not a decimal integer: \"{}\"", syntax::excerpt(offset_text)));
        out.has_offset = true;
        out.offset = *offset;
    }
    return out;
}

// RFC 8216 §4.3.2.2: without @o the sub-range follows the previous segment's,
// which must be a sub-range of the same resource.
ByteRange resolve_range(const Reader& r, const PendingRange& range, const std::string& uri,
                        const std::optional<MediaSegmentEntry>& before) {
    if (range.has_offset) return {range.length, range.offset};
    if (!before || !before->byte_range || before->uri != uri)
        r.fail(range.line, "EXT-X-BYTERANGE without an offset must follow a sub-range of the same URI");
    const ByteRange& previous = *before->byte_range;
    if (previous.offset > std::numeric_limits<std::uint64_t>::max() - previous.length)
        r.fail(range.line, "EXT-X-BYTERANGE offset overflows");
    return {range.length, previous.offset + previous.length};
}

// EXT-X-MAP's BYTERANGE="<n>[@<o>]" (RFC 8216 §4.3.2.5); without an
// offset the range starts at the resource's first byte.
std::optional<ByteRange> map_byte_range(const Reader& r, const Line& line, const HlsAttributes& a) {
    const auto value = a.get("BYTERANGE");
    if (!value) return std::nullopt;
    const std::string_view text = *value;
    const std::size_t at = text.find('@');
    const auto length = syntax::parse_decimal_integer(text.substr(0, at));
    const auto offset = at == std::string_view::npos ? std::optional<std::uint64_t>(0)
                                                     : syntax::parse_decimal_integer(text.substr(at + 1));
    if (!length || !offset)
        r.fail(line.number, fmt::format("EXT-X-MAP BYTERANGE is not <length>[@<offset>]: \"{}\"", syntax::excerpt(text)));
    return ByteRange{*length, *offset};
}

// A master playlist entry's attributes, or nullopt past the limit: then it
// is only counted, since reading its attributes would take memory.
std::optional<HlsAttributes> entry_attributes(const Reader& r, const Line& line, const Tag& tag,
                                              std::initializer_list<const char*> required,
                                              const PlaylistLimits& limits, MasterPlaylist& p) {
    if (p.entries_listed++ >= limits.max_entries) return std::nullopt;
    HlsAttributes a = r.attributes(line, tag);
    require(r, line, a, tag.name, required);
    return a;
}

}  // namespace

MediaPlaylist parse_media_playlist(std::string_view text, const std::string& origin, PlaylistLimits limits) {
    Reader r(text, origin);
    MediaPlaylist p;
    bool seen_target = false;
    bool seen_sequence = false;
    PendingSegment segment;
    PendingRange range;
    // The segment before, also when it was not kept: a byte range without
    // an offset continues its sub-range.
    std::optional<MediaSegmentEntry> previous;

    Line line;
    while (r.next(line)) {
        switch (classify(line.text)) {
            case LineKind::blank:
            case LineKind::comment:
                continue;
            case LineKind::uri: {
                if (!segment.line) r.fail(line.number, "a URI line without a preceding EXTINF");
                MediaSegmentEntry entry{segment.duration, std::string(line.text), std::nullopt};
                if (range.line) entry.byte_range = resolve_range(r, range, entry.uri, previous);
                // Counted always, kept within the limit (a copy only then).
                if (p.segments_listed++ < limits.max_entries) p.segments.push_back(entry);
                previous = std::move(entry);
                segment = {};
                range = {};
                continue;
            }
            case LineKind::tag:
                break;
        }
        const Tag tag = split_tag(line.text);
        if (one_of(kMasterTags, tag.name))
            r.fail(line.number, fmt::format("{} is a master playlist tag, in a media playlist", tag.name));
        if (tag.name == "EXTINF") {
            if (segment.line) r.fail(segment.line, "EXTINF without a following URI line");
            segment = PendingSegment{line.number, extinf_duration(r, line, tag)};
        } else if (tag.name == "EXT-X-BYTERANGE") {
            if (range.line) r.fail(range.line, "EXT-X-BYTERANGE without a following URI line");
            range = byte_range(r, line, tag);
        } else if (tag.name == "EXT-X-VERSION") {
            p.version = r.version(line, tag);
        } else if (tag.name == "EXT-X-TARGETDURATION") {
            if (seen_target) r.fail(line.number, "a second EXT-X-TARGETDURATION");
            seen_target = true;
            p.target_duration = static_cast<int>(r.integer(line, tag, std::numeric_limits<int>::max()));
        } else if (tag.name == "EXT-X-MEDIA-SEQUENCE") {
            if (seen_sequence) r.fail(line.number, "a second EXT-X-MEDIA-SEQUENCE");
            seen_sequence = true;
            p.media_sequence = static_cast<std::int64_t>(r.integer(line, tag, std::numeric_limits<std::int64_t>::max()));
        } else if (tag.name == "EXT-X-PLAYLIST-TYPE") {
            if (tag.value != "VOD" && tag.value != "EVENT")
                r.fail(line.number,
                       fmt::format("EXT-X-PLAYLIST-TYPE must be VOD or EVENT, got \"{}\"", syntax::excerpt(tag.value)));
            p.playlist_type = std::string(tag.value);
        } else if (tag.name == "EXT-X-INDEPENDENT-SEGMENTS") {
            p.independent_segments = true;
        } else if (tag.name == "EXT-X-I-FRAMES-ONLY") {
            p.iframes_only = true;
        } else if (tag.name == "EXT-X-ENDLIST") {
            p.endlist = true;
        } else if (tag.name == "EXT-X-MAP") {
            const HlsAttributes a = r.attributes(line, tag);
            require(r, line, a, tag.name, {"URI"});
            std::string uri = *a.get("URI");
            const auto range = map_byte_range(r, line, a);
            // The model holds one initialization section, which is all ladder writes.
            if (p.map_uri && (*p.map_uri != uri || p.map_byte_range != range))
                r.fail(line.number,
                       "a second EXT-X-MAP with another URI or BYTERANGE (one initialization section is supported)");
            p.map_uri = std::move(uri);
            p.map_byte_range = range;
        }
        // Other tags (EXT-X-DISCONTINUITY, EXT-X-KEY, ...) and unknown ones are
        // ignored, as RFC 8216 §6.3.1 asks of clients.
    }
    if (segment.line) r.fail(segment.line, "EXTINF without a following URI line");
    if (range.line) r.fail(range.line, "EXT-X-BYTERANGE without a following URI line");
    if (!seen_target) r.fail(r.lines_read(), "no EXT-X-TARGETDURATION in the playlist (RFC 8216 requires it)");
    return p;
}

MasterPlaylist parse_master_playlist(std::string_view text, const std::string& origin, PlaylistLimits limits) {
    Reader r(text, origin);
    MasterPlaylist p;
    std::size_t variant_line = 0;  // an EXT-X-STREAM-INF waiting for its URI (0: none)
    bool variant_kept = false;     // and whether it was kept (PlaylistLimits)

    Line line;
    while (r.next(line)) {
        switch (classify(line.text)) {
            case LineKind::blank:
            case LineKind::comment:
                continue;
            case LineKind::uri:
                if (!variant_line) r.fail(line.number, "a URI line without a preceding EXT-X-STREAM-INF");
                if (variant_kept) p.variants.back().uri = std::string(line.text);
                variant_line = 0;
                continue;
            case LineKind::tag:
                break;
        }
        const Tag tag = split_tag(line.text);
        if (one_of(kMediaTags, tag.name))
            r.fail(line.number, fmt::format("{} is a media playlist tag, in a master playlist", tag.name));
        if (tag.name == "EXT-X-STREAM-INF") {
            if (variant_line) r.fail(variant_line, "EXT-X-STREAM-INF without a following URI line");
            variant_line = line.number;
            auto a = entry_attributes(r, line, tag, {"BANDWIDTH"}, limits, p);
            variant_kept = a.has_value();
            if (a) p.variants.push_back(VariantStream{std::move(*a), {}});
        } else if (tag.name == "EXT-X-I-FRAME-STREAM-INF") {
            if (auto a = entry_attributes(r, line, tag, {"BANDWIDTH", "URI"}, limits, p))
                p.iframe_streams.push_back(std::move(*a));
        } else if (tag.name == "EXT-X-MEDIA") {
            if (auto a = entry_attributes(r, line, tag, {"TYPE", "GROUP-ID", "NAME"}, limits, p))
                p.media.push_back(std::move(*a));
        } else if (tag.name == "EXT-X-VERSION") {
            p.version = r.version(line, tag);
        } else if (tag.name == "EXT-X-INDEPENDENT-SEGMENTS") {
            p.independent_segments = true;
        }
        // Other tags (EXT-X-SESSION-DATA, EXT-X-START, ...) and unknown ones
        // are ignored, as RFC 8216 §6.3.1 asks of clients.
    }
    if (variant_line) r.fail(variant_line, "EXT-X-STREAM-INF without a following URI line");
    return p;
}

}  // namespace ladder::mux
