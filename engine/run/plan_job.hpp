#pragma once
// `ladder plan`: decide the whole job once, so that shards on other machines
// encode exactly their part of it. The source is decoded once here (no
// encoding) to count its frames after the constant-rate step exactly as a
// run counts them: chunk boundaries are frame numbers every shard agrees on.
#include <stop_token>

#include "engine/run/job.hpp"
#include "engine/plan/job_plan.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/source/source_info.hpp"

namespace ladder::engine {

// Uses input, ladder, encoder, preset, splice_check, segment_seconds and
// audio of options; writes nothing. Throws InputError or Cancelled.
JobPlan make_plan(const JobOptions& options, ProgressSink& progress, std::stop_token stop = {});

// --rate-control budget: searches each rung's CRFs over the whole source
// (a run of the plan's one shard, 0/1, into workdir's journal, where the
// shards then find every chunk at its CRF) and returns the plan with them
// (JobPlan::chunk_crf). base as for shard_job_options. Throws what run_job
// throws.
JobPlan search_plan_budgets(JobPlan plan, const std::filesystem::path& workdir, const JobOptions& base,
                            ProgressSink& progress, std::stop_token stop = {});

// The source a shard or stitch opened is the one planned: same size in
// bytes, picture size and frame rate. Throws InputError saying what differs.
void check_source_matches_plan(const JobPlan& plan, const SourceInfo& src);

// The options of shard `shard` of `plan`, whose folder is workdir: the
// plan's source, ladder and encoder settings over `base` (which keeps where
// and how to encode: policy, slots, memory budget...).
JobOptions shard_job_options(const JobPlan& plan, const std::filesystem::path& workdir, ShardSpec shard,
                             JobOptions base);

}  // namespace ladder::engine
