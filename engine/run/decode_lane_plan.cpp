#include "engine/run/decode_lane_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <set>

namespace ladder::engine {

void note_decode_lanes(const SourceInfo& src, int wanted, int lanes, ProgressSink& progress) {
    if (lanes > 1)
        progress.note(NoteLevel::info, fmt::format("decoding {} in {} lanes at once, each from a key frame", src.path,
                                                    lanes));
    if (lanes < wanted)
        progress.note(NoteLevel::info,
                      fmt::format("input {}: {} decode lane(s) instead of {}: a lane starts only at a key frame that "
                                  "nothing coded before is shown after, whose leading pictures come first and that a "
                                  "decoder can start at, at least two segments from the next",
                                  src.path, lanes, wanted));
}

void note_gpus_without_lanes(int gpus, int lanes, bool growable, ProgressSink& progress) {
    if (lanes >= gpus) return;
    if (growable)
        progress.note(NoteLevel::info,
                      fmt::format("frames stay on the GPU that decoded them, and only {} of the {} GPUs decode from the "
                                  "start (the source has too few clean key frames for a lane each): the sessions on "
                                  "the others encode nothing until a lane grows onto their GPU",
                                  lanes, gpus));
    else
        progress.note(NoteLevel::warning,
                      fmt::format("frames stay on the GPU that decoded them, and only {} of the {} GPUs decode: the "
                                  "sessions on the others encode nothing in this run; give --decoders {} or more, or "
                                  "--decode cpu to let any GPU take any chunk",
                                  lanes, gpus, gpus));
}

int encoding_gpus(const std::vector<gpu::EncoderSlot>& slots) {
    std::set<int> gpus;
    for (const gpu::EncoderSlot& slot : slots)
        if (slot.kind != gpu::DeviceKind::cpu) gpus.insert(slot.device_index);
    return std::max(1, static_cast<int>(gpus.size()));
}

namespace {

// The lanes a run starts with and may grow to when nothing is asked (the
// first may be more than the most: the caller caps it).
LaneCounts natural_lane_counts(const DevicePlan& devices, const gpu::CpuInfo& cpu) {
    const int gpus = static_cast<int>(devices.decode_gpus.size());
    // Frames that stay where they were decoded reach a GPU's sessions only
    // from its own lanes: every GPU decodes from the start.
    if (gpus > 0 && devices.keep_frames_on_gpu) return {gpus, 3 * gpus};
    if (gpus > 0) return {1, 3 * gpus};
    // A GPU's sessions take frames faster than one CPU lane makes them: a
    // lane per encoding GPU from the start, not grown one by one while
    // they wait (docs/benchmarks.md, "A CPU lane per encoding GPU").
    return {encoding_gpus(devices.slots), std::max(1, cpu.cores / 4)};
}

}  // namespace

LaneCounts decode_lanes_wanted(const JobOptions& options, const DevicePlan& devices, const gpu::CpuInfo& cpu) {
    if (options.shard) return {};
    if (options.decoders > 0) return {options.decoders, options.decoders};
    LaneCounts counts = natural_lane_counts(devices, cpu);
    if (options.max_decoders > 0) counts.most = options.max_decoders;
    counts.first = std::min(counts.first, counts.most);
    return counts;
}

bool encoders_wait_for_frames(const gpu::GpuPool& pool, ChunkDispatcher& dispatcher) {
    return dispatcher.queued_chunks() < pool.size();
}

void grow_decode_lanes(std::stop_token stop, StageThreads& stages, DecodeLanes& lanes, LaneConsumers& consumers,
                       int most, double min_seconds, const std::function<bool()>& starved) {
    // A tick is a quarter second cut short by the stop: a one-shot event
    // the stop sets. Nothing else is shared, so nothing needs a lock.
    std::promise<void> stop_event;
    const std::future<void> stopped = stop_event.get_future();
    const std::stop_callback on_stop(stop, [&stop_event] { stop_event.set_value(); });
    int starved_ticks = 0;
    while (lanes.size() < most && !lanes.all_read()) {
        if (stopped.wait_for(std::chrono::milliseconds(250)) == std::future_status::ready || stop.stop_requested())
            return;
        starved_ticks = starved() ? starved_ticks + 1 : 0;
        if (starved_ticks < 2) continue;
        starved_ticks = 0;
        if (!lanes.grow(stages, min_seconds, [&consumers] { consumers.add_lane(); },
                        [&consumers](int lane) { consumers.connect(lane); }))
            return;
    }
}

std::vector<DecodeLanes::Device> decode_devices(const DevicePlan& devices) {
    std::vector<DecodeLanes::Device> out;
    for (const DecodeGpu& g : devices.decode_gpus) out.push_back({g.device.get(), g.label, g.ordinal});
    return out;
}

}  // namespace ladder::engine
