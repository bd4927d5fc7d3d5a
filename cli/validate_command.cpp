#include "cli/validate_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "engine/check/ladder_validator.hpp"

namespace ladder::cli {

CLI::App* add_validate_command(CLI::App& app, ValidateArgs& a) {
    CLI::App* cmd = app.add_subcommand(
        "validate",
        "Check an HLS ladder written by `ladder encode` (and its DASH manifest, when there is one): playlists "
        "parse, every referenced file exists, once, every segment starts with a key frame, CODECS, VIDEO-RANGE and "
        "each init segment's colr box agree with its av1C, BANDWIDTH and AVERAGE-BANDWIDTH are within 10% of the "
        "measured rates, EXTINF matches the samples, each segment's time goes on from the one before, and segment "
        "boundaries line up across rungs and with the audio. Only files inside the folder are read: a URI or DASH "
        "BaseURL that leads outside it (absolute, .., a URL, a symbolic link) is a problem. A count a file claims "
        "(segments, repeats) beyond what the files on disk can hold is a problem, not checked one by one. Exit 0 "
        "when valid, 1 with problems.");
    cmd->add_option("outdir", a.outdir, "The ladder's folder (the one holding master.m3u8)")->required();
    cmd->add_flag("-q,--quiet", a.quiet, "Print only problems");
    cmd->add_flag("--decode", a.decode,
                  "Also decode every video segment (libaom's reference decoder, on all cores) and count its frames: a "
                  "frame it cannot decode is a problem. Reads every frame, so it takes longer");
    return cmd;
}

int run_validate(const ValidateArgs& a) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a.outdir, ec)) {
        fmt::print(stderr, "ladder: error: {} is not a directory: pass the folder holding master.m3u8\n", a.outdir);
        return 2;
    }
    engine::ValidationOptions options;
    options.decode = a.decode;
    options.decode_threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    const engine::ValidationReport report = engine::validate_hls_ladder(a.outdir, options);
    for (const auto& p : report.problems) fmt::print("{}/{}\n", a.outdir, p);
    const std::string decoded = a.decode ? fmt::format(", {} video frames decoded", report.decoded_frames) : "";
    if (!a.quiet || !report.problems.empty())
        fmt::print(stderr, "ladder: {}: {} variant{}, {} segment{} checked{}, {} problem{}\n", a.outdir,
                   report.variants, report.variants == 1 ? "" : "s", report.segments,
                   report.segments == 1 ? "" : "s", decoded, report.problems.size(),
                   report.problems.size() == 1 ? "" : "s");
    return report.problems.empty() ? 0 : 1;
}

}  // namespace ladder::cli
