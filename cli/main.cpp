// ladder: turn one video into an AV1 adaptive-bitrate ladder.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cstring>

#include "av/logging.hpp"
#include "engine/encode/process/encoder_process.hpp"
#include "engine/encode/process/encoder_process_main.hpp"
#include "engine/encode/process/realtime_lockout.hpp"
#include "cli/crash_report.hpp"
#include "cli/devices_command.hpp"
#include "cli/encode_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/report_command.hpp"
#include "cli/stitch_command.hpp"
#include "cli/validate_command.hpp"

int main(int argc, char** argv) {
    // Before anything starts a thread or an encoder, in ladder and in each of
    // its encoder processes alike (engine/encode/process/realtime_lockout.hpp).
    ladder::engine::forbid_realtime_scheduling();
    // ladder's own encoder processes (engine/encode/process/encoder_process.hpp): nothing
    // else, not even the crash report, runs in them.
    if (argc == 2 && std::strcmp(argv[1], ladder::engine::kEncoderProcessArgument) == 0)
        return ladder::engine::run_encoder_process(ladder::engine::kEncoderProcessSocketFd);
    ladder::cli::install_crash_report();
    ladder::av::quiet_library_logs();

    CLI::App app{"ladder: turn one video into an AV1 adaptive-bitrate ladder using every encoder on the machine"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "ladder 0.1.0");
    ladder::cli::EncodeArgs encode;
    CLI::App* encode_cmd = ladder::cli::add_encode_command(app, encode);
    ladder::cli::PlanArgs plan;
    CLI::App* plan_cmd = ladder::cli::add_plan_command(app, plan);
    ladder::cli::StitchArgs stitch;
    CLI::App* stitch_cmd = ladder::cli::add_stitch_command(app, stitch);
    ladder::cli::ValidateArgs validate;
    CLI::App* validate_cmd = ladder::cli::add_validate_command(app, validate);
    ladder::cli::DevicesArgs devices;
    CLI::App* devices_cmd = ladder::cli::add_devices_command(app, devices);
    ladder::cli::ReportArgs report;
    CLI::App* report_cmd = ladder::cli::add_report_command(app, report);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "ladder: error: {}\nRun 'ladder --help' or 'ladder encode --help' for usage.\n", e.what());
        return 2;
    }
    if (encode_cmd->parsed()) return ladder::cli::run_encode(encode);
    if (plan_cmd->parsed()) return ladder::cli::run_plan(plan);
    if (stitch_cmd->parsed()) return ladder::cli::run_stitch(stitch);
    if (validate_cmd->parsed()) return ladder::cli::run_validate(validate);
    if (devices_cmd->parsed()) return ladder::cli::run_devices(devices);
    if (report_cmd->parsed()) return ladder::cli::run_report_command(report);
    return 2;
}
