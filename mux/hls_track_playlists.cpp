#include "mux/hls_track_playlists.hpp"

namespace ladder::mux {

namespace {

MediaPlaylist base_playlist(const std::vector<CmafSegment>& segments) {
    MediaPlaylist p;
    p.version = 7;
    p.playlist_type = "VOD";
    p.independent_segments = true;
    p.map_uri = CmafTrackWriter::init_name;
    p.endlist = true;
    std::vector<double> durations;
    for (const auto& s : segments) durations.push_back(s.duration);
    p.target_duration = target_duration(durations);
    return p;
}

}  // namespace

MediaPlaylist media_playlist_for(const std::vector<CmafSegment>& segments) {
    MediaPlaylist p = base_playlist(segments);
    for (const auto& s : segments) p.segments.push_back({s.duration, s.uri, std::nullopt});
    return p;
}

MediaPlaylist iframe_playlist_for(const std::vector<CmafSegment>& segments) {
    MediaPlaylist p = base_playlist(segments);
    p.iframes_only = true;
    // Each segment starts with its only key frame, shown until the next one.
    for (const auto& s : segments) p.segments.push_back({s.duration, s.uri, ByteRange{s.iframe_bytes, 0}});
    return p;
}

std::vector<SegmentSize> segment_sizes(const std::vector<CmafSegment>& segments) {
    std::vector<SegmentSize> out;
    for (const auto& s : segments) out.push_back({s.duration, s.bytes});
    return out;
}

std::vector<SegmentSize> iframe_sizes(const std::vector<CmafSegment>& segments) {
    std::vector<SegmentSize> out;
    for (const auto& s : segments) out.push_back({s.duration, s.iframe_bytes});
    return out;
}

}  // namespace ladder::mux
