#pragma once
// The HLS playlist model (RFC 8216) shared by ladder's playlist writer and
// the reader behind `ladder validate`. Only what ladder writes and checks.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
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
    std::vector<MediaSegmentEntry> segments;
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
};

class PlaylistError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Writers (hls_playlist_writer.cpp). EXTINF is written with 6 decimals.
std::string render_media_playlist(const MediaPlaylist& p);
std::string render_master_playlist(const MasterPlaylist& p);

// Readers (hls_playlist_reader.cpp). origin names the file in errors, which
// carry the line number. Throw PlaylistError on malformed input.
MediaPlaylist parse_media_playlist(const std::string& text, const std::string& origin);
MasterPlaylist parse_master_playlist(const std::string& text, const std::string& origin);

}  // namespace ladder::mux
