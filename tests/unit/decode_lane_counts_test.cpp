// How many decode lanes a run starts with and may grow to, from its options,
// its devices and the CPU.
#include <gtest/gtest.h>

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

gpu::CpuInfo cores(int n) {
    gpu::CpuInfo cpu;
    cpu.cores = n;
    return cpu;
}

TEST(DecodeLaneCounts, CpuEncodersStartOneCpuLaneAndGrowToOnePerFourCores) {
    DevicePlan devices;
    devices.slots = {cpu_slot(), cpu_slot()};
    const LaneCounts counts = decode_lanes_wanted(JobOptions{}, devices, cores(16));
    EXPECT_EQ(counts.first, 1);
    EXPECT_EQ(counts.most, 4);
}

TEST(DecodeLaneCounts, GpuEncodersFedFromTheCpuStartALanePerEncodingGpu) {
    DevicePlan devices;
    // Two sessions on each of four GPUs, and a CPU slot beside them.
    for (int gpu = 0; gpu < 4; ++gpu) devices.slots.insert(devices.slots.end(), 2, nvenc_slot(gpu));
    devices.slots.push_back(cpu_slot());
    LaneCounts counts = decode_lanes_wanted(JobOptions{}, devices, cores(16));
    EXPECT_EQ(counts.first, 4);
    EXPECT_EQ(counts.most, 4);
    // No more lanes than the cores allow.
    counts = decode_lanes_wanted(JobOptions{}, devices, cores(8));
    EXPECT_EQ(counts.first, 2);
    EXPECT_EQ(counts.most, 2);
}

TEST(DecodeLaneCounts, DecodersGivenFixTheCount) {
    DevicePlan devices;
    devices.slots = {nvenc_slot(0), nvenc_slot(1)};
    JobOptions options;
    options.decoders = 3;
    const LaneCounts counts = decode_lanes_wanted(options, devices, cores(16));
    EXPECT_EQ(counts.first, 3);
    EXPECT_EQ(counts.most, 3);
}

TEST(DecodeLaneCounts, MaxDecodersCapsTheLanesStartedAndGrownTo) {
    DevicePlan devices;
    for (int gpu = 0; gpu < 4; ++gpu) devices.slots.push_back(nvenc_slot(gpu));
    JobOptions options;
    options.max_decoders = 2;
    LaneCounts counts = decode_lanes_wanted(options, devices, cores(16));
    EXPECT_EQ(counts.first, 2);
    EXPECT_EQ(counts.most, 2);
    options.max_decoders = 8;
    counts = decode_lanes_wanted(options, devices, cores(16));
    EXPECT_EQ(counts.first, 4);
    EXPECT_EQ(counts.most, 8);
}

TEST(DecodeLaneCounts, MaxDecodersLetsAFewCoreMachineStartALanePerGpu) {
    DevicePlan devices;
    devices.slots = {nvenc_slot(0), nvenc_slot(1)};
    LaneCounts counts = decode_lanes_wanted(JobOptions{}, devices, cores(2));
    EXPECT_EQ(counts.first, 1);
    EXPECT_EQ(counts.most, 1);
    JobOptions options;
    options.max_decoders = 4;
    counts = decode_lanes_wanted(options, devices, cores(2));
    EXPECT_EQ(counts.first, 2);
    EXPECT_EQ(counts.most, 4);
}

TEST(DecodeLaneCounts, FramesKeptOnTheGpusStartALaneOnEveryDecodingGpu) {
    DevicePlan devices;
    devices.decode_gpus.resize(2);
    devices.keep_frames_on_gpu = true;
    devices.slots = {nvenc_slot(0), nvenc_slot(1)};
    LaneCounts counts = decode_lanes_wanted(JobOptions{}, devices, cores(16));
    EXPECT_EQ(counts.first, 2);
    EXPECT_EQ(counts.most, 6);
    JobOptions options;
    options.max_decoders = 4;
    counts = decode_lanes_wanted(options, devices, cores(16));
    EXPECT_EQ(counts.first, 2) << "--max-decoders no longer leaves a GPU without a lane at the start";
    EXPECT_EQ(counts.most, 4);
}

TEST(EncodingGpus, CountsEachGpuOnceAndAtLeastOne) {
    EXPECT_EQ(encoding_gpus({nvenc_slot(1), nvenc_slot(1), nvenc_slot(3), cpu_slot()}), 2);
    EXPECT_EQ(encoding_gpus({cpu_slot()}), 1);
    EXPECT_EQ(encoding_gpus({}), 1);
}

}  // namespace
}  // namespace ladder::engine
