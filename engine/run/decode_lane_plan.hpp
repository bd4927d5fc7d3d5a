#pragma once
// How a run sizes its decode lanes (engine/source/decode_lanes.hpp): how many it
// starts and may grow to, on which devices, and the measured rule that
// starts one more while it runs.
#include <functional>
#include <stop_token>
#include <vector>

#include "engine/schedule/chunk_dispatcher.hpp"
#include "engine/source/decode_lanes.hpp"
#include "engine/schedule/device_plan.hpp"
#include "engine/run/job.hpp"
#include "engine/rung/lane_consumers.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/source/source_info.hpp"
#include "engine/base/stage_threads.hpp"
#include "gpu/cpu_info.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::engine {

// How many decode lanes the run starts with and may have: --decoders fixes
// the number; otherwise one lane starts (one per GPU when the frames stay
// on the GPUs, and on the CPU one per GPU that encodes) and more start
// while the encoders wait for frames (grow_decode_lanes), up to three NVDEC
// sessions per decoding GPU or a lane per 4 cores on the CPU, or
// --max-decoders (which caps the lanes started too). A shard decodes in
// one pass: the nodes are its parallelism (docs/benchmarks.md, "Decode
// lanes").
struct LaneCounts {
    int first = 1;
    int most = 1;
};
LaneCounts decode_lanes_wanted(const JobOptions& options, const DevicePlan& devices, const gpu::CpuInfo& cpu);

// The GPUs the slots encode on (at least 1).
int encoding_gpus(const std::vector<gpu::EncoderSlot>& slots);

// The devices lanes decode on, the decoding GPU first (empty: the CPU).
std::vector<DecodeLanes::Device> decode_devices(const DevicePlan& devices);

// Says how many lanes run, and why fewer than wanted.
void note_decode_lanes(const SourceInfo& src, int wanted, int lanes, ProgressSink& progress);

// Where frames stay on the GPU that decoded them, a GPU's sessions encode
// only what its own lanes decode: says so when fewer lanes than GPUs start
// (growable: more may start while the run goes).
void note_gpus_without_lanes(int gpus, int lanes, bool growable, ProgressSink& progress);

// Whether the encoders wait for frames: fewer chunks are ready than there
// are encoder slots. (Slots themselves are no measure: a GPU session holds
// its slot while it waits for its next chunk.) When the encoders are the
// limit, chunks pile up in the queues instead, up to the memory budget.
bool encoders_wait_for_frames(const gpu::GpuPool& pool, ChunkDispatcher& dispatcher);

// The measured side of decode lanes, a stage of its own: every quarter
// second, whether the encoders wait for frames (starved); twice in a row
// starts one more lane (on the far half of the largest range not read
// yet), up to `most`, until every lane has read its range.
void grow_decode_lanes(std::stop_token stop, StageThreads& stages, DecodeLanes& lanes, LaneConsumers& consumers,
                       int most, double min_seconds, const std::function<bool()>& starved);

}  // namespace ladder::engine
