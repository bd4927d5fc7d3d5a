#pragma once
// The HLS playlist model (RFC 8216) shared by ladder's playlist writer and
// the reader behind `ladder validate`. Only what ladder writes and checks.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::mux {

struct HlsAttribute {
    std::string name;
    std::string value;    // without quotes
    bool quoted = false;  // quoted-string in the playlist
};

// An attribute list in playlist order.
struct HlsAttributes {
    std::vector<HlsAttribute> items;

    const HlsAttribute* find(const std::string& name) const;
    std::optional<std::string> get(const std::string& name) const;
    void set(const std::string& name, std::string value, bool quoted);
};

struct ByteRange {
    std::uint64_t length = 0;
    std::uint64_t offset = 0;
    bool operator==(const ByteRange&) const = default;
};

struct MediaSegmentEntry {
    double duration = 0;  // EXTINF seconds
    std::string uri;
    std::optional<ByteRange> byte_range;  // EXT-X-BYTERANGE (always with offset when ladder writes it)
};

struct MediaPlaylist {
    int version = 7;
    int target_duration = 0;
    std::int64_t media_sequence = 0;
    std::string playlist_type;  // "VOD", "EVENT" or empty
    bool independent_segments = false;
    bool iframes_only = false;
    std::optional<std::string> map_uri;  // EXT-X-MAP URI
    std::optional<ByteRange> map_byte_range;  // its BYTERANGE (ladder writes none; an offset left out is 0)
    std::vector<MediaSegmentEntry> segments;
    // Set by the reader: the URI lines in the playlist, segments.size()
    // unless it kept fewer (PlaylistLimits).
    std::size_t segments_listed = 0;
    bool endlist = false;
};

struct VariantStream {
    HlsAttributes attributes;  // EXT-X-STREAM-INF
    std::string uri;
};

struct MasterPlaylist {
    int version = 7;
    bool independent_segments = false;
    std::vector<HlsAttributes> media;          // EXT-X-MEDIA
    std::vector<VariantStream> variants;       // EXT-X-STREAM-INF + URI line
    std::vector<HlsAttributes> iframe_streams; // EXT-X-I-FRAME-STREAM-INF
    // Set by the reader: the EXT-X-MEDIA, EXT-X-STREAM-INF and
    // EXT-X-I-FRAME-STREAM-INF tags in the playlist, the three lists' sizes
    // together unless it kept fewer (PlaylistLimits).
    std::size_t entries_listed = 0;
};

class PlaylistError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Writers (hls_playlist_writer.cpp). EXTINF is written with 6 decimals.
std::string render_media_playlist(const MediaPlaylist& p);
std::string render_master_playlist(const MasterPlaylist& p);

// How much of a playlist a reader keeps. `ladder validate` reads playlists
// someone else wrote: a playlist's length must not decide how much memory
// the reader takes, so it keeps the first max_entries segments (media) or
// entries (master: renditions, variants and I-frame streams, each list
// counting towards one limit) and only counts the rest. A media playlist's
// entries past the limit are still read and checked; a master playlist's
// past the limit are counted without reading their attributes.
struct PlaylistLimits {
    std::size_t max_entries = std::numeric_limits<std::size_t>::max();
};

// Readers (hls_playlist_reader.cpp). origin names the file in errors, which
// carry the line number. Throw PlaylistError on malformed input.
MediaPlaylist parse_media_playlist(std::string_view text, const std::string& origin, PlaylistLimits limits = {});
MasterPlaylist parse_master_playlist(std::string_view text, const std::string& origin, PlaylistLimits limits = {});

}  // namespace ladder::mux
