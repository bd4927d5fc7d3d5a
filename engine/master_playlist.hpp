#pragma once
// The HLS master playlist of a finished ladder, written last (after every
// rung and the audio are complete): its presence means the ladder is whole.
// Shared by `ladder encode` and `ladder stitch`.
#include <filesystem>
#include <vector>

#include "engine/audio_rendition_writer.hpp"
#include "engine/audio_track.hpp"
#include "engine/rung_runtime.hpp"
#include "engine/source_info.hpp"

namespace ladder::engine {

// audio_rendition and audio: both null for a ladder without audio.
void write_master_playlist(const std::filesystem::path& outdir, const SourceInfo& src,
                           const std::vector<RungRuntime>& rungs, const AudioRenditionWriter* audio_rendition,
                           const AudioTrack* audio);

}  // namespace ladder::engine
