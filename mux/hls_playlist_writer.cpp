#include "mux/hls_playlist.hpp"

#include <fmt/format.h>

#include <cmath>

#include "mux/hls_syntax.hpp"

namespace ladder::mux {

namespace {

// A URI line that held a line break or started with '#' would read back as
// something else; refuse it rather than write a broken playlist.
const std::string& checked_uri(const std::string& uri) {
    if (uri.empty() || uri.front() == '#' || uri.find_first_of("\r\n") != std::string::npos)
        throw PlaylistError(fmt::format("cannot write URI \"{}\": it must be non-empty, not start with '#' and hold "
                                        "no line break",
                                        hls_syntax::excerpt(uri)));
    return uri;
}

// Numbers the reader would refuse (RFC 8216 integers have no sign).
void check_header(const MediaPlaylist& p) {
    if (p.version < 0 || p.target_duration < 0 || p.media_sequence < 0)
        throw PlaylistError(fmt::format("cannot write a media playlist with version {}, target duration {} and media "
                                        "sequence {}: none may be negative",
                                        p.version, p.target_duration, p.media_sequence));
    if (!p.playlist_type.empty() && p.playlist_type != "VOD" && p.playlist_type != "EVENT")
        throw PlaylistError(fmt::format("cannot write EXT-X-PLAYLIST-TYPE \"{}\": it is VOD or EVENT",
                                        hls_syntax::excerpt(p.playlist_type)));
}

void line(std::string& out, std::string_view text) {
    out += text;
    out += '\n';
}

}  // namespace

std::string render_media_playlist(const MediaPlaylist& p) {
    check_header(p);
    std::string out;
    line(out, "#EXTM3U");
    line(out, fmt::format("#EXT-X-VERSION:{}", p.version));
    line(out, fmt::format("#EXT-X-TARGETDURATION:{}", p.target_duration));
    line(out, fmt::format("#EXT-X-MEDIA-SEQUENCE:{}", p.media_sequence));
    if (!p.playlist_type.empty()) line(out, fmt::format("#EXT-X-PLAYLIST-TYPE:{}", p.playlist_type));
    if (p.independent_segments) line(out, "#EXT-X-INDEPENDENT-SEGMENTS");
    if (p.iframes_only) line(out, "#EXT-X-I-FRAMES-ONLY");
    if (p.map_uri) {
        HlsAttributes map;
        map.set("URI", *p.map_uri, true);
        if (p.map_byte_range)
            map.set("BYTERANGE", fmt::format("{}@{}", p.map_byte_range->length, p.map_byte_range->offset), true);
        line(out, "#EXT-X-MAP:" + hls_syntax::format_attribute_list(map));
    }
    for (const auto& s : p.segments) {
        if (!std::isfinite(s.duration) || s.duration < 0)
            throw PlaylistError(fmt::format("cannot write EXTINF {} for {}: durations are finite and not negative",
                                            s.duration, hls_syntax::excerpt(s.uri)));
        line(out, fmt::format("#EXTINF:{:.6f},", s.duration));
        if (s.byte_range) line(out, fmt::format("#EXT-X-BYTERANGE:{}@{}", s.byte_range->length, s.byte_range->offset));
        line(out, checked_uri(s.uri));
    }
    if (p.endlist) line(out, "#EXT-X-ENDLIST");
    return out;
}

std::string render_master_playlist(const MasterPlaylist& p) {
    if (p.version < 0) throw PlaylistError(fmt::format("cannot write a master playlist with version {}", p.version));
    std::string out;
    line(out, "#EXTM3U");
    line(out, fmt::format("#EXT-X-VERSION:{}", p.version));
    if (p.independent_segments) line(out, "#EXT-X-INDEPENDENT-SEGMENTS");
    line(out, "");
    for (const auto& m : p.media) line(out, "#EXT-X-MEDIA:" + hls_syntax::format_attribute_list(m));
    for (const auto& v : p.variants) {
        line(out, "#EXT-X-STREAM-INF:" + hls_syntax::format_attribute_list(v.attributes));
        line(out, checked_uri(v.uri));
    }
    for (const auto& i : p.iframe_streams) line(out, "#EXT-X-I-FRAME-STREAM-INF:" + hls_syntax::format_attribute_list(i));
    return out;
}

}  // namespace ladder::mux
