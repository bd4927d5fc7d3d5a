#pragma once
// Where a run's files go inside OUTDIR, and the checks made before any
// encoding starts: no two outputs (or an output and ladder's own files)
// share a name, not even in another letter case; nothing ladder writes is
// reached through a symbolic link; no output is an input; and nothing there
// is overwritten without --overwrite. Every name here is relative to OUTDIR,
// which the writers hold open (mux/output_folder.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/output/output_formats.hpp"
#include "engine/output/rung_outputs.hpp"
#include "mux/output_folder.hpp"

namespace ladder::engine {

// The HLS audio renditions' folders: OUTDIR/audio/<id>/ (ids from
// AudioRenditionSpec: "aac" for the default track's stereo).
constexpr const char* kAudioFolder = "audio";
// The subtitle renditions' folders: OUTDIR/subtitles/<id>/.
constexpr const char* kSubtitleFolder = "subtitles";
constexpr const char* kMasterPlaylist = "master.m3u8";
constexpr const char* kDashManifest = "manifest.mpd";

// <rung>.mp4
std::string single_file_name(const std::string& rung_name);
// audio/<id>
std::filesystem::path hls_audio_folder(const std::string& rendition_id);
// subtitles/<id>
std::filesystem::path hls_subtitle_folder(const std::string& rendition_id);
// A path inside OUTDIR as the manifests name it: relative, with '/'.
std::string uri_in_ladder(const std::filesystem::path& outdir, const std::filesystem::path& path);

struct LadderOutputs {
    std::vector<RungOutputs> rungs;                // parallel to the ladder's rungs
    std::vector<std::filesystem::path> finals;     // every file that marks an output finished
    std::vector<std::filesystem::path> folders;    // every folder written into
    std::vector<std::string> top_names;            // every name this run claims directly in OUTDIR
};

// Where each rung's outputs go for this packaging. Throws InputError when
// two outputs would share a name in OUTDIR, compared without letter case
// (a case-insensitive file system would make them one): rungs "a" and "A",
// rung "a.mp4" next to rung "a"'s MP4, or a rung named like one of
// ladder's own files and folders (master.m3u8, audio, report.json, ...).
// hls_audio, hls_subtitles: the renditions' ids.
LadderOutputs ladder_outputs(const std::vector<std::string>& rung_names, OutputFormats formats,
                             const std::vector<std::string>& hls_audio,
                             const std::vector<std::string>& hls_subtitles = {});

// The names ladder itself keeps directly in OUTDIR whatever the format:
// the journal, the lock files, the default report, a plan and its reports.
const std::vector<std::string>& ladder_own_names();

// Opens OUTDIR (made when missing) and proves it can be written. Then,
// before anything is written: an UnsafeOutputPath (exit 2) names any
// symbolic link (or file) in the way of a folder or file in `outputs` or of
// other_outputs inside OUTDIR (the report); then an InputError names a final
// file that exists when overwrite is false.
mux::OutputFolder prepare_output_dir(const std::filesystem::path& outdir, const LadderOutputs& outputs, bool overwrite,
                                     const std::vector<std::filesystem::path>& other_outputs = {});

// Refuses (InputError, before anything is written) an input that a run
// writing `claimed` names in OUTDIR could replace or delete: an input at or
// below one of those names (its links resolved), OUTDIR itself as an input,
// a file in `other_outputs` (the report) that is an input, and a claimed
// file that is an input under another name (a hard link).
void refuse_outputs_over_inputs(const std::filesystem::path& outdir, const std::vector<std::string>& claimed,
                                const std::vector<std::filesystem::path>& inputs,
                                const std::vector<std::filesystem::path>& other_outputs);

// Refuses (UnsafeOutputPath, exit 2) a symbolic link at any of `files`
// (the report) that lies inside OUTDIR, or on the way to it from OUTDIR:
// there, a link was planted, not chosen.
void refuse_links_in_the_way(const std::filesystem::path& outdir, const std::vector<std::filesystem::path>& files);

// After a failed or stopped run: removes what would make OUTDIR look like a
// finished ladder. Every HLS rung, audio and subtitle playlist goes (their segments
// may now be a mix of this run and an earlier one), and so does each MP4
// that this run finished (`finished` is parallel to `rungs`). Segments and
// the chunk journal stay, so --resume rebuilds them without encoding again.
// The master playlist is written only at the very end and never exists here.
void withdraw_finished_outputs(const mux::OutputFolder& outdir, const std::vector<RungOutputs>& rungs,
                               const std::vector<bool>& finished,
                               const std::vector<std::filesystem::path>& rendition_folders);

}  // namespace ladder::engine
