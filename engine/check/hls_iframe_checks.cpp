// validate_hls_ladder's checks of I-frame playlists (EXT-X-I-FRAME-STREAM-INF):
// each entry's byte range in its file, holding a key frame, after the
// playlist's own init segment (itself a byte range of its file).
#include <fmt/format.h>

#include "av/av_error.hpp"
#include "av/memory_input.hpp"
#include "engine/check/hls_ladder_validator.hpp"

namespace ladder::engine::hls_validation {

InitFacts Validator::iframe_playlist(const LadderFile& playlist) {
    const auto id = folder_.identity(playlist);
    if (id)
        if (const auto it = iframe_playlists_.find(*id); it != iframe_playlists_.end()) return it->second;
    InitFacts facts;
    if (auto p = load_media(playlist)) {
        if (!p->iframes_only) problem(playlist.path, "no EXT-X-I-FRAMES-ONLY");
        if (const auto map = p->map_uri ? follow(playlist.path, *p->map_uri) : std::nullopt) {
            FileBytes whole = folder_.read(*map);
            // A missing one is reported with the media playlist.
            const auto init = whole.status == ReadStatus::ok ? map_range(playlist.path, *p, std::move(whole.bytes))
                                                             : std::nullopt;
            if (init) {
                facts = init_facts(*init, *map);
                check_iframes(*p, playlist, *init);
            }
        }
    }
    if (id) iframe_playlists_.emplace(*id, facts);
    return facts;
}

void Validator::check_iframes(const mux::MediaPlaylist& p, const LadderFile& playlist,
                              const std::vector<std::uint8_t>& init) {
    ListingCheck listing(iframe_segments_, shown_name(playlist.path));
    for (const auto& s : p.segments)
        if (const auto seg = read_listed(playlist.path, s.uri, listing, "missing (referenced by the I-frame playlist)"))
            check_iframe(playlist.path, s, seg->bytes, init);
    report_listing(playlist.path, listing);
}

// The entry's byte range must lie in its file and hold a key frame.
void Validator::check_iframe(const fs::path& playlist, const mux::MediaSegmentEntry& s,
                             const std::vector<std::uint8_t>& bytes, const std::vector<std::uint8_t>& init) {
    if (!s.byte_range) {
        problem(playlist, fmt::format("{}: no EXT-X-BYTERANGE", shown(s.uri)));
        return;
    }
    if (!range_fits(*s.byte_range, bytes.size())) {
        problem(playlist, fmt::format("{}: {}", shown(s.uri), out_of_file("EXT-X-BYTERANGE", *s.byte_range, bytes.size())));
        return;
    }
    std::vector<std::uint8_t> joined = init;
    const auto range = sub_range(bytes, *s.byte_range);
    joined.insert(joined.end(), range.begin(), range.end());
    try {
        av::MemoryInput in(std::move(joined), s.uri);
        av::PacketPtr pkt = av::make_packet();
        if (!in.read(pkt.get()) || !(pkt->flags & AV_PKT_FLAG_KEY))
            problem(playlist, fmt::format("{}: the byte range does not hold a key frame", shown(s.uri)));
    } catch (const std::exception& e) {
        problem(playlist, fmt::format("{}: the byte range is not readable: {}", shown(s.uri), e.what()));
    }
}

}  // namespace ladder::engine::hls_validation
