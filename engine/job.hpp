#pragma once
// A whole run: open and describe the source, fit the ladder, check the
// output directory, then start the decode pump, one scaler and one finalizer
// per rung, and one encoder worker per pool slot; join them all and report.
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>

#include "engine/job_report.hpp"
#include "engine/ladder_spec.hpp"
#include "engine/progress_sink.hpp"
#include "mux/av1_sequence_header.hpp"

namespace ladder::engine {

// hls: CMAF segments + playlists (OUTDIR/master.m3u8); mp4: OUTDIR/<rung>.mp4;
// both: the two from the same encoded chunks.
enum class OutputFormat { hls, mp4, both };

struct JobOptions {
    std::filesystem::path input;
    std::filesystem::path outdir;
    std::optional<LadderSpec> ladder;  // nullopt: the default ladder
    std::string encoder = "libsvtav1";
    int cpu_slots = 0;                 // 0: from cores and memory
    double segment_seconds = 2.0;
    bool audio = true;
    bool overwrite = false;
    int preset = -1;
    mux::SpliceCheck splice_check = mux::SpliceCheck::strict;
    OutputFormat format = OutputFormat::hls;
    std::size_t queue_chunks = 2;      // raw chunks waiting per rung
};

// Throws InputError (unusable input or options), RunError (the run failed)
// or Cancelled (stop requested).
JobReport run_job(const JobOptions& options, ProgressSink& progress, std::stop_token stop = {});

}  // namespace ladder::engine
