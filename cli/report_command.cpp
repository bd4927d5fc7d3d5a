#include "cli/report_command.hpp"

#include <exception>
#include <filesystem>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/report_html.hpp"
#include "cli/report_view.hpp"
#include "cli/timeline_svg.hpp"
#include "mux/output_folder.hpp"

namespace ladder::cli {

CLI::App* add_report_command(CLI::App& app, ReportArgs& a) {
    CLI::App* cmd = app.add_subcommand(
        "report",
        "Draw the timeline of a run from its report (OUTDIR/report.json of `ladder encode`): one row per encoder "
        "slot, one bar per chunk from its start to its end colored by rung, each slot's busy share. --svg writes "
        "the picture, --html a self-contained page with the picture and tables per rung and per slot. Exit 0 when "
        "written, 2 when the report is missing or invalid.");
    cmd->add_option("report", a.report, "The run's report.json")->required()->type_name("REPORT.json");
    // CLI11 enforces "at least one of": its message names both options.
    CLI::Option_group* outputs = cmd->add_option_group("outputs", "What to write (at least one)");
    outputs->add_option("--svg", a.svg, "Write the timeline picture (SVG) to FILE")->type_name("FILE");
    outputs->add_option("--html", a.html, "Write a self-contained HTML page (picture + tables) to FILE")
        ->type_name("FILE");
    outputs->require_option(1, 0);
    return cmd;
}

namespace {

// The same file under any name (device and inode).
bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec) && std::filesystem::equivalent(a, b, ec);
}

}  // namespace

int run_report_command(const ReportArgs& a) {
    for (const std::string* out : {&a.svg, &a.html})
        if (!out->empty() && same_file(*out, a.report)) {
            fmt::print(stderr, "ladder: error: {} is the report being read: write the picture to another file\n",
                       *out);
            return 2;
        }
    ReportView report;
    try {
        report = read_report(a.report);
    } catch (const ReportError& e) {
        fmt::print(stderr, "ladder: error: {}: {}\n", a.report, e.what());
        return 2;
    }
    // Both are rendered before either is written, and each appears whole or
    // not at all.
    struct Output {
        const std::string& path;
        std::string text;
    };
    std::vector<Output> outputs;
    if (!a.svg.empty()) outputs.push_back({a.svg, render_timeline_svg(report)});
    if (!a.html.empty()) outputs.push_back({a.html, render_report_html(report)});
    for (const Output& o : outputs) {
        try {
            mux::write_file_atomically(o.path, std::string_view(o.text));
        } catch (const std::exception& e) {
            fmt::print(stderr, "ladder: error: {}\n", e.what());
            return 1;
        }
    }
    return 0;
}

}  // namespace ladder::cli
