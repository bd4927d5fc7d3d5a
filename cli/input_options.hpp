#pragma once
// The options `encode` and `plan` share about what is read: --frame-rate
// (image sequences) and --audio-file.
#include <CLI/CLI.hpp>

#include <string>

#include "engine/run/job.hpp"

namespace ladder::cli {

CLI::Option* add_frame_rate_option(CLI::App& cmd, std::string& frame_rate);
CLI::Option* add_audio_file_option(CLI::App& cmd, std::string& audio_file);

// Into the job's options. Throws std::invalid_argument for a frame rate that
// is not one, or --audio-file with --audio none.
void set_input_options(engine::JobOptions& options, const std::string& frame_rate, const std::string& audio_file,
                       const std::string& audio);

}  // namespace ladder::cli
