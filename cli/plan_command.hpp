#pragma once
// `ladder plan INPUT -o WORKDIR`: the plan of a job that shards on many
// machines encode (`ladder encode --plan WORKDIR/plan.json --shard I/N`) and
// `ladder stitch WORKDIR -o OUTDIR` assembles.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ladder::cli {

struct PlanArgs {
    std::string input;
    std::string workdir;
    std::string frame_rate;  // --frame-rate: an image sequence's rate
    std::string audio_file;  // --audio-file
    std::string ladder_file;
    std::vector<std::string> rungs;
    std::string encoder = "svt";
    int preset = -1;
    double segment_seconds = 2.0;
    std::string audio = "aac";
    std::string subtitles = "all";
    std::string splice_check = "strict";
    std::string rate_control = "vbr";
    bool overwrite = false;
    bool quiet = false;
    std::string progress = "auto";
};

CLI::App* add_plan_command(CLI::App& app, PlanArgs& args);
int run_plan(const PlanArgs& args);

}  // namespace ladder::cli
