#include "engine/media/track_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

extern "C" {
#include <libavutil/avstring.h>
}

namespace ladder::engine {

namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";              // U+2026

bool is_control(std::int32_t code) { return code < 0x20 || (code >= 0x7F && code <= 0x9F); }
bool is_white_space_control(std::int32_t code) { return code == '\t' || code == '\n' || code == '\r' || code == 0x85; }

// One character of the name: its UTF-8 bytes, or a space, or nothing.
std::string_view name_character(std::int32_t code, bool valid, std::string_view bytes) {
    if (!valid) return kReplacementCharacter;
    if (code == '"') return "'";
    if (is_white_space_control(code)) return " ";
    if (is_control(code)) return {};
    return bytes;
}

// The characters of `text` (in UTF-8, with U+FFFD for what is not), each
// as name_character() makes it.
std::vector<std::string_view> name_characters(std::string_view text) {
    std::vector<std::string_view> out;
    const auto* p = reinterpret_cast<const std::uint8_t*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const auto* start = p;
        std::int32_t code = 0;
        const bool valid = av_utf8_decode(&code, &p, end, 0) >= 0;
        const std::string_view bytes(reinterpret_cast<const char*>(start), static_cast<std::size_t>(p - start));
        if (const std::string_view c = name_character(code, valid, bytes); !c.empty()) out.push_back(c);
    }
    return out;
}

// No space at either end and never two in a row.
std::vector<std::string_view> single_spaced(const std::vector<std::string_view>& characters) {
    std::vector<std::string_view> out;
    for (const std::string_view c : characters) {
        if (c == " " && (out.empty() || out.back() == " ")) continue;
        out.push_back(c);
    }
    if (!out.empty() && out.back() == " ") out.pop_back();
    return out;
}

// Whole characters up to kMaxTrackNameBytes, the last place taken by "…"
// when some had to go.
std::string joined_within_limit(const std::vector<std::string_view>& characters) {
    std::string out;
    for (const std::string_view c : characters) out += c;
    if (out.size() <= kMaxTrackNameBytes) return out;
    out.clear();
    for (const std::string_view c : characters) {
        if (out.size() + c.size() + kEllipsis.size() > kMaxTrackNameBytes) break;
        out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += kEllipsis;
    return out;
}

bool taken_by(const std::vector<std::string>& taken, const std::string& name) {
    return std::find(taken.begin(), taken.end(), name) != taken.end();
}

}  // namespace

std::string track_name(std::string_view metadata_text) {
    return joined_within_limit(single_spaced(name_characters(metadata_text)));
}

std::string unique_track_name(const std::string& name, int ordinal, const std::vector<std::string>& taken) {
    if (!taken_by(taken, name)) return name;
    const std::string with_track = fmt::format("{} (track {})", name, ordinal);
    std::string candidate = with_track;
    for (int n = 2; taken_by(taken, candidate); ++n) candidate = fmt::format("{} {}", with_track, n);
    return candidate;
}

}  // namespace ladder::engine
