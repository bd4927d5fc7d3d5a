// When frames may stay in the memory of the GPU that decoded them: every
// slot NVENC on a decoding GPU, and sessions on the first decoding GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/schedule/device_plan.hpp"

namespace ladder::engine {
namespace {

gpu::EncoderSlot stay_nvenc_on(int ordinal) {
    gpu::EncoderSlot s;
    s.kind = gpu::DeviceKind::nvidia;
    s.set_encoder("av1_nvenc");
    s.device = std::to_string(ordinal);
    return s;
}

gpu::EncoderSlot stay_cpu_slot() {
    gpu::EncoderSlot s;
    s.kind = gpu::DeviceKind::cpu;
    s.set_encoder("libsvtav1");
    return s;
}

TEST(FramesCanStay, EverySlotNvencOnADecodingGpu) {
    EXPECT_TRUE(frames_can_stay({stay_nvenc_on(0), stay_nvenc_on(0)}, {0}));
    EXPECT_TRUE(frames_can_stay({stay_nvenc_on(1), stay_nvenc_on(3), stay_nvenc_on(3)}, {1, 3}));
    EXPECT_TRUE(frames_can_stay({stay_nvenc_on(1)}, {1, 2})) << "a decoding GPU without sessions is left out later";
}

TEST(FramesCanStay, NotWithACpuSlotOrASlotOnAGpuThatDoesNotDecode) {
    EXPECT_FALSE(frames_can_stay({stay_nvenc_on(0), stay_cpu_slot()}, {0})) << "a CPU session needs host frames";
    EXPECT_FALSE(frames_can_stay({stay_nvenc_on(0), stay_nvenc_on(1)}, {0})) << "GPU 1's sessions would get no chunks";
}

TEST(FramesCanStay, NotWhenTheFirstDecodingGpuHasNoSession) {
    EXPECT_FALSE(frames_can_stay({stay_nvenc_on(1)}, {0, 1})) << "GPU 0 would decode chunks nobody takes";
}

TEST(FramesCanStay, NotWithoutSlotsOrDecodingGpus) {
    EXPECT_FALSE(frames_can_stay({}, {0}));
    EXPECT_FALSE(frames_can_stay({stay_nvenc_on(0)}, {}));
}

}  // namespace
}  // namespace ladder::engine
