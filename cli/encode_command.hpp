#pragma once
// `ladder encode`: its options, their help text, and the run.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace ladder::cli {

struct EncodeArgs {
    std::string input;
    std::string outdir;
    std::string frame_rate;  // --frame-rate: an image sequence's rate (empty: not given)
    std::string audio_file;  // --audio-file: the audio from this file instead of the input's
    std::string format = "hls";
    std::string ladder_file;
    std::vector<std::string> rungs;
    std::string encoder = "svt";
    std::string policy = "auto";
    std::string nvenc_client = "ladder";
    int sessions_per_gpu = 0;  // not given: one per NVENC engine
    int decoders = 0;          // 0: grows while the encoders wait for frames
    int max_decoders = 0;      // 0: from the devices
    std::string decode = "auto";
    int cpu_slots = 0;
    int cpu_threads = 0;
    std::string cpu_encoders;
    int max_tries = 3;
    std::string verify_chunks = "auto";  // --verify-chunks auto|all
    int session_chunks = 15;
    bool session_chunks_given = false;  // then it caps hardware encoders' sessions too
    std::string bit_allocation = "complexity";
    bool bit_allocation_given = false;  // then auto is vbr, and budget refuses it
    std::string rate_control = "auto";
    std::string isolation = "process";  // process, none
    double encoder_timeout = 120;       // seconds without progress before an encoder process is killed
    std::string memory_budget;
    std::string gpu_memory_budget;
    double segment_seconds = 2.0;
    std::string audio = "aac";
    std::string subtitles = "all";
    bool overwrite = false;
    bool resume = false;
    int preset = -1;
    std::string quality = "none";  // --quality psnr|ssim|xpsnr|none
    std::string splice_check = "strict";
    bool quiet = false;
    std::string progress = "auto";  // auto, bars, plain, json, none
    std::string report;             // empty: OUTDIR/report.json; "none": no report
    std::string plan;               // --plan WORKDIR/plan.json: encode a shard of it
    std::string shard;              // --shard I/N
};

// Registers the subcommand's options on `app`, bound to `args`.
CLI::App* add_encode_command(CLI::App& app, EncodeArgs& args);

// Runs it; returns the process exit code (0, 1, 2, or 130 / 143 when stopped by SIGINT / SIGTERM).
int run_encode(const EncodeArgs& args);

}  // namespace ladder::cli
