#pragma once
// Where a run's files go, and the checks made before any encoding starts:
// the directory can be created and written, and nothing there would be
// overwritten without --overwrite.
#include <filesystem>
#include <string>
#include <vector>

namespace ladder::engine {

// OUTDIR/<rung>.mp4
std::filesystem::path single_file_path(const std::filesystem::path& outdir, const std::string& rung_name);
// OUTDIR/<rung>/ (init.mp4, seg_NNNNN.m4s, index.m3u8, iframes.m3u8)
std::filesystem::path hls_rung_dir(const std::filesystem::path& outdir, const std::string& rung_name);
// OUTDIR/audio/<name>/
std::filesystem::path hls_audio_dir(const std::filesystem::path& outdir, const std::string& rendition_name);
// OUTDIR/master.m3u8
std::filesystem::path master_playlist_path(const std::filesystem::path& outdir);

// Creates outdir if needed and proves it is writable; throws InputError when
// it is not, or when one of `outputs` exists and overwrite is false.
void prepare_output_dir(const std::filesystem::path& outdir, const std::vector<std::filesystem::path>& outputs,
                        bool overwrite);

}  // namespace ladder::engine
