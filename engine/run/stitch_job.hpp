#pragma once
// `ladder stitch WORKDIR -o OUTDIR`: the outputs of a plan whose shards have
// encoded every chunk into WORKDIR. Every chunk is checked before anything
// is written (there, whole, of this plan, the planned frames, splicing with
// its rung); missing or bad ones are named together. Video is not decoded
// again: chunks go straight to the finalizers. The source is read again for
// its audio only (encoded once, here).
#include <filesystem>
#include <vector>
#include <stop_token>

#include "engine/run/job.hpp"
#include "engine/base/job_report.hpp"
#include "engine/base/progress_sink.hpp"

namespace ladder::engine {

struct StitchOptions {
    std::filesystem::path workdir;  // holds plan.json and the shards' .ladder/
    std::filesystem::path outdir;
    OutputFormats formats{OutputFormat::hls};  // --format (engine/output/output_formats.hpp)
    bool overwrite = false;
    // Files the caller writes besides the outputs (the report): never an input.
    std::vector<std::filesystem::path> other_outputs;
};

// Throws InputError (no plan, bad options, outputs exist), RunError (chunks
// missing or bad, a write failed) or Cancelled.
JobReport stitch_job(const StitchOptions& options, ProgressSink& progress, std::stop_token stop = {});

}  // namespace ladder::engine
