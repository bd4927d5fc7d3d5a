#pragma once
// Where a run's files go, and the checks made before any encoding starts:
// the directory can be created and written, and nothing there would be
// overwritten without --overwrite.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/rung_outputs.hpp"

namespace ladder::engine {

// The HLS audio renditions' folders: OUTDIR/audio/<id>/ (ids from
// AudioRenditionSpec: "aac" for the default track's stereo).
constexpr const char* kAudioFolder = "audio";
// The subtitle renditions' folders: OUTDIR/subtitles/<id>/.
constexpr const char* kSubtitleFolder = "subtitles";

// OUTDIR/<rung>.mp4
std::filesystem::path single_file_path(const std::filesystem::path& outdir, const std::string& rung_name);
// OUTDIR/<rung>/ (init.mp4, seg_NNNNN.m4s, index.m3u8, iframes.m3u8)
std::filesystem::path hls_rung_dir(const std::filesystem::path& outdir, const std::string& rung_name);
// OUTDIR/audio/<name>/
std::filesystem::path hls_audio_dir(const std::filesystem::path& outdir, const std::string& rendition_name);
// OUTDIR/subtitles/<id>/
std::filesystem::path hls_subtitle_dir(const std::filesystem::path& outdir, const std::string& rendition_id);
// OUTDIR/master.m3u8
std::filesystem::path master_playlist_path(const std::filesystem::path& outdir);
// OUTDIR/manifest.mpd
std::filesystem::path dash_manifest_path(const std::filesystem::path& outdir);
// A path inside OUTDIR as the manifests name it: relative, with '/'.
std::string uri_in_ladder(const std::filesystem::path& outdir, const std::filesystem::path& path);

struct LadderOutputs {
    std::vector<RungOutputs> rungs;             // parallel to the ladder's rungs
    std::vector<std::filesystem::path> finals;  // every file that marks an output finished
};

// Where each rung's outputs go for this packaging, and the files that must
// not exist already (for prepare_output_dir). Throws InputError for a rung
// named like the HLS audio or subtitle folder. hls_audio, hls_subtitles:
// the renditions' ids.
LadderOutputs ladder_outputs(const std::filesystem::path& outdir, const std::vector<std::string>& rung_names,
                             bool write_mp4, bool write_hls, const std::vector<std::string>& hls_audio,
                             const std::vector<std::string>& hls_subtitles = {});

// Creates outdir if needed and proves it is writable; throws InputError when
// it is not, or when one of `outputs` exists and overwrite is false.
void prepare_output_dir(const std::filesystem::path& outdir, const std::vector<std::filesystem::path>& outputs,
                        bool overwrite);

// After a failed or stopped run: removes what would make OUTDIR look like a
// finished ladder. Every HLS rung, audio and subtitle playlist goes (their segments
// may now be a mix of this run and an earlier one), and so does each MP4
// that this run finished (`finished` is parallel to `rungs`). Segments and
// the chunk journal stay, so --resume rebuilds them without encoding again.
// The master playlist is written only at the very end and never exists here.
void withdraw_finished_outputs(const std::vector<RungOutputs>& rungs, const std::vector<bool>& finished,
                               const std::vector<std::filesystem::path>& rendition_dirs);

}  // namespace ladder::engine
