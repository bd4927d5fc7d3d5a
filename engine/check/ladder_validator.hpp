#pragma once
// Room engine/check/: what ladder checks of its work: a finished ladder on disk
// (`ladder validate`, read only inside its folder) and an encoded chunk's quality.
// May include: base.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// `ladder validate`: checks a CMAF/HLS ladder on disk the way a player and a
// packager reviewer would — playlists parse, every referenced file exists,
// every segment starts with a key frame, CODECS (every AV1 entry, I-frame
// streams too) and VIDEO-RANGE match the init segment's av1C, and so do its
// colr boxes and av1C's own fields, BANDWIDTH / AVERAGE-BANDWIDTH are within
// 10% of what the files measure, EXTINF values match the samples, each
// segment's decode time goes on from the one before, byte ranges lie inside
// their files, no segment file is listed twice, and segment boundaries line
// up across rungs (and with the audio, which must start and end with the
// video: engine/check/segment_timing.hpp); and the DASH manifest next to them,
// when there is one (engine/check/dash_validator.hpp). With decode, every
// video segment decodes to all its frames.
//
// The ladder is someone else's: a count a file claims (segments, entries,
// repeats) is believed only as far as the files on disk can hold it, so the
// memory and time validate takes are bounded by the files, not by numbers
// in them (docs/hardening.md "Hostile manifests").
#include <filesystem>
#include <string>
#include <vector>

namespace ladder::engine {

struct ValidationReport {
    std::vector<std::string> problems;  // one line each, naming the file
    int variants = 0;
    int segments = 0;  // media segments checked
    long decoded_frames = 0;  // with decode
};

struct ValidationOptions {
    // Every video segment decoded (libdav1d, engine/check/chunk_decode.hpp)
    // to as many frames as it holds samples: a frame no decoder reads is a
    // problem. Off by default: it reads every frame, not only the boxes.
    bool decode = false;
    int decode_threads = 1;
};

ValidationReport validate_hls_ladder(const std::filesystem::path& outdir, const ValidationOptions& options = {});

}  // namespace ladder::engine
