#pragma once
// --rate-control budget, the parts of its passes that run/job.cpp's
// search_budgets (which runs the passes themselves) asks for: what each
// rung's chunks take in the next pass, what a pass made of a rung, what
// the report says of each search, and what the mode refuses.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

extern "C" {
#include <libavutil/rational.h>
}

#include "engine/base/job_report.hpp"
#include "engine/base/memory_budget.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/run/job.hpp"
#include "engine/schedule/device_plan.hpp"
#include "engine/rung/rung.hpp"
#include "engine/rung/rung_crf_search.hpp"
#include "engine/source/decoded_frames.hpp"
#include "engine/source/source_info.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::engine {

// The ladder's search: every rung's target and size.
LadderCrfSearch ladder_search(const LadderSpec& ladder, AVRational frame_rate);

// Each rung's chunks' CRFs for the next pass, as the search asks (a
// settled mixed rung: some chunks one CRF up; a rung that waits for the
// ladder's lead sits the pass out). None: no search.
std::vector<ChunkCrfs> chunk_crfs_of(const std::optional<LadderCrfSearch>& search);

// After a pass: what each rung that searched in it (searched[i]) made, to
// its search, with a note per rung.
void record_pass(LadderCrfSearch& search, const std::vector<bool>& searched, const Rungs& rungs, double frame_rate,
                 ProgressSink& progress);

// Each rung's CRF, verdict, encodes and chunk CRFs into the report.
void report_searches(const std::optional<LadderCrfSearch>& search, JobReport& report);

// The writing pass's: the search's, or in a shard of a budget plan the
// CRFs the plan's search settled on (none for vbr).
std::vector<ChunkCrfs> chunk_crfs_of(const std::optional<LadderCrfSearch>& search, const JobOptions& options);

// Budget rate control needs every chunk of a rung in one run (or a plan
// whose search settled them) and frames decoded and scaled on the CPU:
// InputError if not.
void check_budget_request(const JobOptions& options);

// --rate-control auto: budget where it can run (every slot takes a CRF,
// the source decoded on the CPU, the ladder sets no CRF), else vbr. why: when vbr,
// what kept the run from budget.
RateMode chosen_rate_mode(const JobOptions& options, const DevicePlan& devices, std::string& why);

// The request as the run carries it out, --rate-control auto settled
// (chosen_rate_mode) and budget checked against the slots (check_budget_slots);
// where auto could not use budget, a note in devices.notes saying why
// (said with the devices' notes, once the whole pre-flight has passed).
JobOptions with_rate_mode_chosen(const JobOptions& asked, DevicePlan& devices);

// Whether the run searches: budget rate control, not in a shard of a plan
// that searched already (its CRFs are the plan's).
bool budget_searches(const JobOptions& options);

// Where the run searches (budget_searches) and the source's normalized frames (frames
// of them, estimated) take at most half of the run's memory budget: a store
// for them that holds their bytes from that budget for the run, so that the
// passes after the first decode nothing. Null otherwise: every pass decodes.
std::unique_ptr<DecodedFrames> keep_frames_for_passes(const JobOptions& options, const SourceInfo& source,
                                                      std::int64_t frames, MemoryBudget& memory);

// ... and an encoder that takes a constant quality on every slot.
void check_budget_slots(const JobOptions& options, const std::vector<gpu::EncoderSlot>& slots);

}  // namespace ladder::engine
