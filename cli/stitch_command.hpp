#pragma once
// `ladder stitch WORKDIR -o OUTDIR`: the outputs of a plan whose shards have
// encoded every chunk into WORKDIR.
#include <CLI/CLI.hpp>

#include <string>

namespace ladder::cli {

struct StitchArgs {
    std::string workdir;
    std::string outdir;
    std::string format = "hls";
    bool overwrite = false;
    bool quiet = false;
    std::string progress = "auto";
    std::string report;  // empty: OUTDIR/report.json; "none": no report
};

CLI::App* add_stitch_command(CLI::App& app, StitchArgs& args);
int run_stitch(const StitchArgs& args);

}  // namespace ladder::cli
