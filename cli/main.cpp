// ladder: turn one video into an AV1 adaptive-bitrate ladder.
#include <CLI/CLI.hpp>

#include <cstdlib>

#include <fmt/format.h>

#include "cli/encode_command.hpp"

extern "C" {
#include <libavutil/log.h>
}

int main(int argc, char** argv) {
    // FFmpeg and SVT-AV1 write to stderr on their own; keep them to errors so
    // ladder's own lines stay readable. LADDER_FFMPEG_LOG=debug etc. overrides.
    av_log_set_level(AV_LOG_ERROR);
    if (const char* level = std::getenv("LADDER_FFMPEG_LOG")) {
        if (std::string_view(level) == "warning") av_log_set_level(AV_LOG_WARNING);
        if (std::string_view(level) == "info") av_log_set_level(AV_LOG_INFO);
        if (std::string_view(level) == "debug") av_log_set_level(AV_LOG_DEBUG);
    }
    setenv("SVT_LOG", "1", 0);

    CLI::App app{"ladder: turn one video into an AV1 adaptive-bitrate ladder using every encoder on the machine"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "ladder 0.1.0");
    ladder::cli::EncodeArgs encode;
    CLI::App* encode_cmd = ladder::cli::add_encode_command(app, encode);

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
    return 2;
}
