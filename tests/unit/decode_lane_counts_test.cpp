// How many decode lanes a run starts with and may grow to, from its options,
// its devices and the CPU.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "engine/run/decode_lane_plan.hpp"

namespace ladder::engine {
namespace {

gpu::EncoderSlot nvenc_slot(int gpu) {
    gpu::EncoderSlot slot;
    slot.kind = gpu::DeviceKind::nvidia;
    slot.device_index = gpu;
    return slot;
}

gpu::EncoderSlot cpu_slot() { return gpu::EncoderSlot{}; }

// {first, most} of a run on `cores` cores, with --max-decoders and
// --decoders as given (0: not given).
std::pair<int, int> lanes(const DevicePlan& devices, int cores, int max_decoders = 0, int decoders = 0) {
    JobOptions options;
    options.max_decoders = max_decoders;
    options.decoders = decoders;
    gpu::CpuInfo cpu;
    cpu.cores = cores;
    const LaneCounts counts = decode_lanes_wanted(options, devices, cpu);
    return {counts.first, counts.most};
}

DevicePlan nvenc_on(int gpus) {
    DevicePlan devices;
    for (int gpu = 0; gpu < gpus; ++gpu) devices.slots.push_back(nvenc_slot(gpu));
    return devices;
}

using Counts = std::pair<int, int>;

TEST(DecodeLaneCounts, CpuEncodersStartOneCpuLaneAndGrowToOnePerFourCores) {
    DevicePlan devices;
    devices.slots = {cpu_slot(), cpu_slot()};
    EXPECT_EQ(lanes(devices, 16), Counts(1, 4));
}

TEST(DecodeLaneCounts, GpuEncodersFedFromTheCpuStartALanePerEncodingGpu) {
    // Two sessions on each of four GPUs, and a CPU slot beside them.
    DevicePlan devices = nvenc_on(4);
    devices.slots.insert(devices.slots.end(), devices.slots.begin(), devices.slots.end());
    devices.slots.push_back(cpu_slot());
    EXPECT_EQ(lanes(devices, 16), Counts(4, 4));
    // No more lanes than the cores allow.
    EXPECT_EQ(lanes(devices, 8), Counts(2, 2));
}

TEST(DecodeLaneCounts, DecodersGivenFixTheCount) { EXPECT_EQ(lanes(nvenc_on(2), 16, 0, 3), Counts(3, 3)); }

TEST(DecodeLaneCounts, MaxDecodersCapsTheLanesStartedAndGrownTo) {
    EXPECT_EQ(lanes(nvenc_on(4), 16, 2), Counts(2, 2));
    EXPECT_EQ(lanes(nvenc_on(4), 16, 8), Counts(4, 8));
}

TEST(DecodeLaneCounts, MaxDecodersLetsAFewCoreMachineStartALanePerGpu) {
    EXPECT_EQ(lanes(nvenc_on(2), 2), Counts(1, 1));
    EXPECT_EQ(lanes(nvenc_on(2), 2, 4), Counts(2, 4));
}

TEST(DecodeLaneCounts, FramesKeptOnTheGpusStartALaneOnEveryDecodingGpu) {
    DevicePlan devices = nvenc_on(2);
    devices.decode_gpus.resize(2);
    devices.keep_frames_on_gpu = true;
    EXPECT_EQ(lanes(devices, 16), Counts(2, 6));
    // --max-decoders no longer leaves a GPU without a lane at the start.
    EXPECT_EQ(lanes(devices, 16, 4), Counts(2, 4));
}

TEST(EncodingGpus, CountsEachGpuOnceAndAtLeastOne) {
    EXPECT_EQ(encoding_gpus({nvenc_slot(1), nvenc_slot(1), nvenc_slot(3), cpu_slot()}), 2);
    EXPECT_EQ(encoding_gpus({cpu_slot()}), 1);
    EXPECT_EQ(encoding_gpus({}), 1);
}

}  // namespace
}  // namespace ladder::engine
