#pragma once
// `ladder validate OUTDIR [--decode]`: prints every problem of an HLS ladder; exit 0
// when there is none, 1 when there is one, 2 when OUTDIR is not a folder.
#include <CLI/CLI.hpp>

#include <string>

namespace ladder::cli {

struct ValidateArgs {
    std::string outdir;
    bool quiet = false;
    bool decode = false;
};

CLI::App* add_validate_command(CLI::App& app, ValidateArgs& args);
int run_validate(const ValidateArgs& args);

}  // namespace ladder::cli
