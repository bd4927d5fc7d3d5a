#pragma once
// OUTDIR/manifest.mpd over the HLS rungs' and audio rendition's CMAF
// segments (mux/dash_manifest.hpp), written like the master playlist:
// atomically, after every file it names. Shared by `ladder encode` and
// `ladder stitch`.
#include <filesystem>
#include <vector>

#include "engine/audio_rendition_writer.hpp"
#include "engine/audio_track.hpp"
#include "engine/rung_runtime.hpp"
#include "engine/source_info.hpp"

namespace ladder::engine {

// audio_rendition and audio: both null for a ladder without audio.
void write_dash_manifest(const std::filesystem::path& outdir, const SourceInfo& src,
                         const std::vector<RungRuntime>& rungs, const AudioRenditionWriter* audio_rendition,
                         const AudioTrack* audio);

}  // namespace ladder::engine
