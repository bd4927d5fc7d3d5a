#pragma once
// Test helpers: run programs (argv vectors, no shell), make clips with the
// ffmpeg CLI and read outputs back with ffprobe / ffmpeg + libdav1d, which
// are independent of ladder's own code.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ladder::test {

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
    bool timed_out = false;  // killed by the watchdog (exit_code is then 128 + SIGKILL)
};

// timeout_seconds > 0: a watchdog kills the process after that long, so a
// hang fails the test instead of blocking the suite.
ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {},
                          int timeout_seconds = 0);

// run_ladder for an encode whose output a whole suite only reads (its
// SetUpTestSuite, which runs in every test process): an earlier test
// process's output for the same ladder binary, arguments (OUT_DIR aside) and
// input bytes is copied into OUT_DIR instead (run_cache.hpp); the result then
// has exit code 0 and no output text.
ProcessResult run_ladder_shared(const std::vector<std::string>& args, const std::filesystem::path& out_dir);

// Starts the ladder binary in the background and returns its pid, for tests
// that signal or kill it; wait_exit() reaps it and gives the exit code (128 +
// signal when killed). Its stdout is discarded, its stderr too unless
// stderr_file names where to keep it.
int spawn_ladder(const std::vector<std::string>& args, const std::filesystem::path& stderr_file = {});

// Chunk files in OUTDIR/.ladder (the resume journal) at this moment.
int journaled_chunks(const std::filesystem::path& outdir);

// Lines in a process's output (each ends with '\n').
int count_lines(const std::string& text);
int wait_exit(int pid);

// Runs the ladder binary under test; extra_env entries are "NAME=value".
ProcessResult run_ladder(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {},
                         int timeout_seconds = 0);

struct ClipSpec {
    int width = 320;
    int height = 240;
    std::string rate = "25";  // frames per second, e.g. "30000/1001"
    double seconds = 3.0;
    bool audio = true;
    std::string extra_video_filter;  // appended to the source chain
};

// Generates an H.264 (+ AAC) clip with lavfi sources into this process's
// scratch folder (once per name). Test processes share the clips they
// generated (run_cache.hpp: keyed by the ffmpeg binary and command line).
std::filesystem::path make_clip(const std::string& name, const ClipSpec& spec);

// Each video packet's size in bytes, in file order, as ffprobe reads the
// file's first video stream (empty, with a failed expectation, if it
// cannot).
std::vector<double> video_packet_sizes(const std::filesystem::path& file);

// A fresh empty directory for one test.
std::filesystem::path fresh_dir(const std::string& name);

struct StreamFacts {
    std::string codec;
    int width = 0;
    int height = 0;
    long frames = 0;          // decoded (ffprobe -count_frames)
    long packets = 0;         // demuxed (ffprobe -count_packets)
    double duration = 0;      // seconds
    std::string pix_fmt;
};

struct FileFacts {
    std::vector<StreamFacts> video;
    std::vector<StreamFacts> audio;
    std::string format_name;
    double duration = 0;
};

FileFacts probe(const std::filesystem::path& file);

// Indexes (in presentation order) of the video frames flagged as key frames.
std::vector<long> key_frame_indexes(const std::filesystem::path& file);

// Decodes every video frame with libdav1d; returns ffmpeg's error output
// (empty when the stream decodes cleanly).
std::string decode_errors(const std::filesystem::path& file);

// A setparams filter ("setparams=colorspace=...:range=...:color_primaries=
// ...:color_trc=...") that labels a frame with the colour properties of the
// file's first video stream (ffprobe; "unknown" where it has none). Put it
// last on both inputs of a comparison filter: FFmpeg 7.x negotiates colour
// between a filter's inputs and converts one input to the other's matrix
// when their tags differ (ladder's BT.709-tagged rung against a reference
// scaled from an untagged source), which lowers PSNR by 2-6 dB that are not
// there; FFmpeg 5.1 compares the pixels as they are. Same labels on both
// sides: both compare the pixels as they are.
std::string same_colour_as(const std::filesystem::path& file);

// Average PSNR (dB, all planes) of the file's video against the source
// scaled to the same size with the same filter ladder uses (both sides
// labelled with the file's colour properties: same_colour_as).
double psnr_against_source(const std::filesystem::path& file, const std::filesystem::path& source, int width,
                           int height);

// PSNR (dB, all planes) of every video frame of the file against the source
// frame at the same position (same scaling and labels as psnr_against_source): a frame
// shifted by one position shows as a dip.
// The per-frame psnr_avg values of an ffmpeg psnr filter stats file (inf as 100).
std::vector<double> psnr_stats_file(const std::filesystem::path& stats);

std::vector<double> psnr_per_frame(const std::filesystem::path& file, const std::filesystem::path& source, int width,
                                   int height);

// Reads the file back with libavformat and compares the sequence header in
// its av1C (sample entry) with the one in the first key frame, strictly.
// Returns the differing fields (empty: they agree); throws when either is
// missing.
std::vector<std::string> av1c_vs_inband_differences(const std::filesystem::path& file);

// Runs a player check of tests/player (play.mjs: hls.js, play-shaka.mjs:
// Shaka Player) on the ladder in dir with a 90 s limit, and prints its output.
ProcessResult run_player(const std::string& script, const std::filesystem::path& dir,
                         const std::vector<std::string>& args);

// The result line tests/player/play.mjs prints ("PLAYER-RESULT {json}"), or
// null when there is none.
nlohmann::json player_result(const std::string& output);

// Whether the MP4's moov box comes before its mdat (faststart).
bool moov_before_mdat(const std::filesystem::path& file);

}  // namespace ladder::test
