#pragma once
// OUTDIR/manifest.mpd over the HLS rungs' and audio rendition's CMAF
// segments (mux/dash_manifest.hpp), written like the master playlist:
// atomically, after every file it names. Shared by `ladder encode` and
// `ladder stitch`.
#include <filesystem>
#include <vector>

#include "engine/output/audio_rendition_writer.hpp"
#include "engine/output/rung_finalizer.hpp"
#include "engine/media/audio_tracks.hpp"
#include "engine/output/subtitle_rendition_writer.hpp"
#include "engine/rung/rung.hpp"
#include "engine/source/source_info.hpp"
#include "mux/output_folder.hpp"

namespace ladder::engine {

// Each rung's CMAF segments are its writer's (RungFinalizer::cmaf()).
// audio_renditions: parallel to audio's tracks; audio is null (and the
// renditions empty) for a ladder without audio.
void write_dash_manifest(const mux::OutputFolder& outdir, const SourceInfo& src,
                         const Rungs& rungs,
                         const std::vector<AudioRenditionWriter*>& audio_renditions,
                         const AudioTracks* audio,
                           const std::vector<const SubtitleRenditionWriter*>& subtitle_renditions = {},
                           const SubtitleTracks* subtitles = nullptr);

}  // namespace ladder::engine
