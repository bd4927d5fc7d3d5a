#pragma once
// What `ladder plan` and `ladder stitch` share with each other and with
// `ladder encode`: the ladder from --ladder / --rung, the progress renderer
// for --progress / -q, the exit code for an exception, the per-rung summary.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/progress_renderer.hpp"
#include "engine/base/job_report.hpp"
#include "engine/plan/ladder_spec.hpp"

namespace ladder::cli {

// --ladder FILE or --rung NAME=WxH@KBPS...; nullopt when neither was given
// (the default ladder). Throws InputError.
std::optional<engine::LadderSpec> ladder_from_arguments(const std::string& ladder_file,
                                                        const std::vector<std::string>& rungs);

// One line per rung on stdout: name, size, frames, measured kb/s (and how
// far from its target when outside the band), output.
void print_rung_lines(const engine::JobReport& report);


// A command's progress on stderr and how it ends (the renderer's last word,
// then the exit code).
class CommandRun {
public:
    // Throws std::invalid_argument for an unknown --progress value.
    CommandRun(const std::string& progress, bool quiet);

    engine::ProgressSink& progress() { return *renderer_; }
    // Returns 0.
    int succeed(double wall_seconds, std::optional<std::string> report_path = std::nullopt);
    // Inside a catch block: 2 for unusable input or options,
    // interrupted_code (the signal's, 130 or 143) when stopped (`interrupted`
    // is the line), else 1 with "ladder: error: <failed>: <what>".
    int fail_with_current_exception(const std::string& failed, const std::string& interrupted, int interrupted_code);
    double seconds() const;

private:
    int end(int code, const std::string& error, std::string message);

    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::unique_ptr<ProgressRenderer> renderer_;
};

}  // namespace ladder::cli
