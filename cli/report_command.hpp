#pragma once
// `ladder report REPORT.json --svg FILE [--html FILE]`: draws a run's
// timeline from its report. Exit 0 when every file asked for was written,
// 1 when one could not be written, 2 when the report is missing, unreadable
// or not a ladder report (one error line naming the file and what is wrong).
#include <CLI/CLI.hpp>

#include <string>

namespace ladder::cli {

struct ReportArgs {
    std::string report;
    std::string svg;
    std::string html;
};

CLI::App* add_report_command(CLI::App& app, ReportArgs& args);
int run_report_command(const ReportArgs& args);

}  // namespace ladder::cli
