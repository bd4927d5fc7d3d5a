#pragma once
// The media and I-frame playlists of one CMAF track, from the segments it
// wrote: EXTINF from the real sample durations, TARGETDURATION per RFC 8216,
// I-frame entries as byte ranges covering moof + the key frame.
#include <vector>

#include "mux/cmaf_track_writer.hpp"
#include "mux/hls_bandwidth.hpp"
#include "mux/hls_playlist.hpp"

namespace ladder::mux {

MediaPlaylist media_playlist_for(const std::vector<CmafSegment>& segments);
MediaPlaylist iframe_playlist_for(const std::vector<CmafSegment>& segments);

// For BANDWIDTH / AVERAGE-BANDWIDTH.
std::vector<SegmentSize> segment_sizes(const std::vector<CmafSegment>& segments);
std::vector<SegmentSize> iframe_sizes(const std::vector<CmafSegment>& segments);

}  // namespace ladder::mux
