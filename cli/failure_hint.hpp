#pragma once
// What a user can do about a failed run, for the causes that have a remedy
// (a full disk, a quota). Empty when there is nothing better to say than the
// error itself.
#include <exception>
#include <filesystem>
#include <string>

namespace ladder::cli {

// True when the failure is the output file system running out of space or
// quota (ENOSPC, EDQUOT), whether from our own writes (std::system_error) or
// from FFmpeg's (av::AvError).
bool is_out_of_space(const std::exception& e);

// "free space ..." advice for a run that failed writing into outdir.
std::string failure_hint(const std::exception& e, const std::filesystem::path& outdir);

}  // namespace ladder::cli
