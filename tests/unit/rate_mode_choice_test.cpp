// --rate-control auto: budget where it can run (every slot takes a CRF,
// frames decoded on the CPU), else vbr with the reason; an explicit mode
// is kept as asked.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "engine/base/errors.hpp"
#include "engine/run/budget_search.hpp"

namespace ladder::engine {
namespace {

gpu::EncoderSlot slot_of(const std::string& encoder, gpu::DeviceKind kind, const std::string& label) {
    gpu::EncoderSlot slot;
    slot.kind = kind;
    slot.label = label;
    slot.set_encoder(encoder);
    return slot;
}

DevicePlan svt_slots(int n) {
    DevicePlan devices;
    for (int i = 0; i < n; ++i) devices.slots.push_back(slot_of("libsvtav1", gpu::DeviceKind::cpu, "cpu"));
    return devices;
}

JobOptions asking(RateMode mode) {
    JobOptions options;
    options.rate_mode = mode;
    return options;
}

TEST(RateModeChoice, AutoIsBudgetWhenEverySlotIsSvtAv1DecodedOnTheCpu) {
    std::string why;
    EXPECT_EQ(chosen_rate_mode(asking(RateMode::automatic), svt_slots(3), why), RateMode::budget);
    EXPECT_EQ(why, "");
}

TEST(RateModeChoice, AutoIsVbrWhenASlotKeepsItsOwnRateControl) {
    for (const auto& [encoder, kind] : {std::pair{std::string("libaom-av1"), gpu::DeviceKind::cpu},
                                        std::pair{std::string("av1_nvenc"), gpu::DeviceKind::nvidia}}) {
        DevicePlan devices = svt_slots(2);
        devices.slots.push_back(slot_of(encoder, kind, "slot2"));
        std::string why;
        EXPECT_EQ(chosen_rate_mode(asking(RateMode::automatic), devices, why), RateMode::vbr) << encoder;
        EXPECT_NE(why.find(encoder), std::string::npos) << why;
        EXPECT_NE(why.find("slot2"), std::string::npos) << why;
    }
}

TEST(RateModeChoice, AutoIsVbrWhenTheSourceIsDecodedOnAGpu) {
    DevicePlan devices = svt_slots(2);
    DecodeGpu nvdec;
    nvdec.label = "GPU 0 test (NVDEC)";
    devices.decode_gpus.push_back(std::move(nvdec));
    std::string why;
    EXPECT_EQ(chosen_rate_mode(asking(RateMode::automatic), devices, why), RateMode::vbr);
    EXPECT_NE(why.find("GPU 0 test (NVDEC)"), std::string::npos) << why;
}

TEST(RateModeChoice, AutoIsVbrWhenTheLadderSetsARungsCrf) {
    JobOptions options = asking(RateMode::automatic);
    options.ladder = LadderSpec{};
    RungSpec rate{"360p", 640, 360, 600};
    RungSpec fixed{"180p", 320, 180, 200};
    fixed.crf = 30;
    options.ladder->rungs = {rate, fixed};
    std::string why;
    EXPECT_EQ(chosen_rate_mode(options, svt_slots(2), why), RateMode::vbr);
    EXPECT_NE(why.find("180p"), std::string::npos) << why;
    options.ladder->rungs = {rate};
    why.clear();
    EXPECT_EQ(chosen_rate_mode(options, svt_slots(2), why), RateMode::budget) << why;
}

TEST(RateModeChoice, BudgetRefusesALadderThatSetsARungsCrf) {
    JobOptions options = asking(RateMode::budget);
    options.ladder = LadderSpec{};
    RungSpec fixed{"180p", 320, 180, 200};
    fixed.crf = 30;
    options.ladder->rungs = {fixed};
    EXPECT_THROW(check_budget_request(options), InputError);
    options.rate_mode = RateMode::vbr;
    EXPECT_NO_THROW(check_budget_request(options));
}

// --bit-allocation is vbr's: asked for, auto honours it and budget refuses
// it (it would be silently ignored).
TEST(RateModeChoice, AnAskedBitAllocationMakesAutoVbrAndBudgetRefuseIt) {
    JobOptions options = asking(RateMode::automatic);
    options.bit_allocation_given = true;
    std::string why;
    EXPECT_EQ(chosen_rate_mode(options, svt_slots(2), why), RateMode::vbr);
    EXPECT_NE(why.find("--bit-allocation"), std::string::npos) << why;
    options.bit_allocation_given = false;
    why.clear();
    EXPECT_EQ(chosen_rate_mode(options, svt_slots(2), why), RateMode::budget) << why;

    JobOptions budget = asking(RateMode::budget);
    budget.bit_allocation_given = true;
    EXPECT_THROW(check_budget_request(budget), InputError);
    budget.rate_mode = RateMode::vbr;
    EXPECT_NO_THROW(check_budget_request(budget));
}

// --session-chunks shapes vbr's sessions; budget encodes one chunk per
// session, so an asked value above 1 is said not to apply (not refused: a
// script's setting for vbr runs must not stop a budget run).
TEST(RateModeChoice, AnAskedSessionLengthIsSaidNotToApplyUnderBudget) {
    const auto warnings = [](const JobOptions& asked) {
        DevicePlan devices = svt_slots(2);
        with_rate_mode_chosen(asked, devices);
        int n = 0;
        for (const auto& [level, text] : devices.notes)
            n += level == NoteLevel::warning && text.find("--session-chunks 4") != std::string::npos;
        return n;
    };
    JobOptions options = asking(RateMode::automatic);
    options.session_chunks = 4;
    EXPECT_EQ(warnings(options), 0) << "not asked for: the default says nothing";
    options.session_chunks_given = true;
    EXPECT_EQ(warnings(options), 1);
    options.rate_mode = RateMode::budget;
    EXPECT_EQ(warnings(options), 1);
    options.rate_mode = RateMode::vbr;
    EXPECT_EQ(warnings(options), 0);
    options.rate_mode = RateMode::budget;
    options.session_chunks = 1;
    EXPECT_EQ(warnings(options), 0) << "one chunk per session is what budget does";
}

TEST(RateModeChoice, AnExplicitModeIsKept) {
    DevicePlan devices = svt_slots(1);
    devices.slots.push_back(slot_of("libaom-av1", gpu::DeviceKind::cpu, "cpu1"));
    std::string why;
    EXPECT_EQ(chosen_rate_mode(asking(RateMode::vbr), svt_slots(1), why), RateMode::vbr);
    EXPECT_EQ(chosen_rate_mode(asking(RateMode::budget), svt_slots(1), why), RateMode::budget);
    // budget on a slot that takes no CRF is refused later (check_budget_slots), not turned into vbr
    EXPECT_EQ(chosen_rate_mode(asking(RateMode::budget), devices, why), RateMode::budget);
    EXPECT_EQ(why, "");
}

}  // namespace
}  // namespace ladder::engine
