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

// Creates outdir if needed and proves it is writable; throws InputError when
// it is not, or when one of `outputs` exists and overwrite is false.
void prepare_output_dir(const std::filesystem::path& outdir, const std::vector<std::filesystem::path>& outputs,
                        bool overwrite);

}  // namespace ladder::engine
