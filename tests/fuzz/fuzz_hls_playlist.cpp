// libFuzzer target: the RFC 8216 playlist reader behind `ladder validate`
// (mux/hls_playlist_reader.cpp, mux/hls_syntax.cpp). The same bytes go to the
// master and the media playlist parser, as validate does with whatever file
// a URI names. Malformed input must end in PlaylistError, nothing else; a
// playlist the reader accepted must survive the writer and read back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "mux/hls_playlist.hpp"

namespace {

template <typename Parse, typename Render>
void check(const std::string& text, Parse parse, Render render) {
    std::string rendered;
    try {
        rendered = render(parse(text, "fuzz.m3u8"));
    } catch (const ladder::mux::PlaylistError&) {
        // Refused by the reader, or by the writer (which is stricter: it
        // only writes what ladder itself produces).
        return;
    }
    try {
        parse(rendered, "rendered.m3u8");
    } catch (const ladder::mux::PlaylistError&) {
        std::abort();  // the writer wrote something its own reader refuses
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    check(text, ladder::mux::parse_master_playlist, ladder::mux::render_master_playlist);
    check(text, ladder::mux::parse_media_playlist, ladder::mux::render_media_playlist);
    return 0;
}
