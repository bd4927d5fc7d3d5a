// libFuzzer target: the RFC 8216 playlist reader behind `ladder validate`
// (mux/hls_playlist_reader.cpp, mux/hls_syntax.cpp). The same bytes go to the
// master and the media playlist parser, as validate does with whatever file
// a URI names. Malformed input must end in PlaylistError, nothing else; a
// playlist the reader accepted must survive the writer and read back. A
// media playlist read with a limit on the segments kept (as validate reads
// them) is accepted or refused as without it, keeps the first segments and
// counts all of them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "mux/hls_playlist.hpp"

namespace {

namespace mux = ladder::mux;

template <typename Parse, typename Render>
void check(const std::string& text, Parse parse, Render render) {
    std::string rendered;
    try {
        rendered = render(parse(text, "fuzz.m3u8"));
    } catch (const mux::PlaylistError&) {
        // Refused by the reader, or by the writer (which is stricter: it
        // only writes what ladder itself produces).
        return;
    }
    try {
        parse(rendered, "rendered.m3u8");
    } catch (const mux::PlaylistError&) {
        std::abort();  // the writer wrote something its own reader refuses
    }
}

void check_limited_media(const std::string& text) {
    constexpr std::size_t kLimit = 1;
    bool whole_refused = false, limited_refused = false;
    mux::MediaPlaylist whole, limited;
    try {
        whole = mux::parse_media_playlist(text, "fuzz.m3u8");
    } catch (const mux::PlaylistError&) {
        whole_refused = true;
    }
    try {
        limited = mux::parse_media_playlist(text, "fuzz.m3u8", mux::PlaylistLimits{kLimit});
    } catch (const mux::PlaylistError&) {
        limited_refused = true;
    }
    if (whole_refused != limited_refused) std::abort();
    if (whole_refused) return;
    if (whole.segments_listed != whole.segments.size() || limited.segments_listed != whole.segments_listed)
        std::abort();
    if (limited.segments.size() != std::min(kLimit, whole.segments.size())) std::abort();
    if (!limited.segments.empty() && limited.segments[0].uri != whole.segments[0].uri) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    check(
        text, [](const std::string& t, const char* origin) { return mux::parse_master_playlist(t, origin); },
        mux::render_master_playlist);
    check(
        text, [](const std::string& t, const char* origin) { return mux::parse_media_playlist(t, origin); },
        mux::render_media_playlist);
    check_limited_media(text);
    return 0;
}
