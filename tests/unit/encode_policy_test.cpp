// --policy parsing, which GPUs a policy selects from an inventory, why a GPU
// is unusable, and the encoder slots made for the usable ones.
#include <gtest/gtest.h>

#include <stdexcept>

#include "gpu/encode_policy.hpp"

namespace ladder::gpu {
namespace {

NvidiaGpu nvidia(int index, const std::string& name, bool av1, const std::string& reason = "") {
    NvidiaGpu g;
    g.index = index;
    g.nvml_index = index;
    g.cuda_ordinal = index;
    g.name = name;
    g.nvenc.session_opened = av1 || reason.empty();
    g.nvenc.av1_encode = av1;
    g.nvenc.reason = reason;
    return g;
}

IntelGpu intel(int index, bool av1) {
    IntelGpu g;
    g.index = index;
    g.name = "Intel(R) Arc(TM) A380 Graphics";
    g.render_node = "/dev/dri/renderD129";
    g.av1_encode = av1;
    if (!av1) g.reason = "no AV1 encode in oneVPL's capabilities";
    return g;
}

DeviceInventory machine() {
    DeviceInventory inv;
    inv.ffmpeg_version = "7.1";
    inv.ffmpeg_av1_nvenc = true;
    inv.ffmpeg_av1_qsv = true;
    inv.nvidia = {nvidia(0, "NVIDIA H200", false, "no NVENC engine"), nvidia(1, "NVIDIA L4", true)};
    inv.intel = {intel(2, true)};
    return inv;
}

TEST(EncodePolicy, ParsesEveryForm) {
    EXPECT_EQ(parse_encode_policy("auto").kind, PolicyKind::automatic);
    EXPECT_EQ(parse_encode_policy("all-gpus").kind, PolicyKind::all_gpus);
    EXPECT_EQ(parse_encode_policy("nvidia").kind, PolicyKind::nvidia);
    EXPECT_EQ(parse_encode_policy("intel").kind, PolicyKind::intel);
    EXPECT_EQ(parse_encode_policy("cpu").kind, PolicyKind::cpu);
    const EncodePolicy list = parse_encode_policy("gpu:2,0");
    EXPECT_EQ(list.kind, PolicyKind::gpu_list);
    EXPECT_EQ(list.gpus, (std::vector<int>{2, 0}));
    EXPECT_TRUE(list.requires_gpu());
    EXPECT_FALSE(parse_encode_policy("auto").requires_gpu());
    EXPECT_FALSE(parse_encode_policy("cpu").wants_gpus());
}

TEST(EncodePolicy, RejectsMalformedPolicies) {
    for (const char* bad : {"gpu:", "gpu:x", "gpu:1,", "gpu:-1", "gpu:0,0", "gpus", "GPU:0", "all", ""})
        EXPECT_THROW(parse_encode_policy(bad), std::invalid_argument) << bad;
    try {
        parse_encode_policy("fastest");
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("all-gpus"), std::string::npos) << "lists what is accepted";
    }
}

TEST(EncodePolicy, AllGpusSelectsEveryGpuAndNamesWhyOneCannotEncode) {
    const PolicySelection sel = select_gpus(parse_encode_policy("all-gpus"), machine());
    ASSERT_EQ(sel.gpus.size(), 3u);
    EXPECT_EQ(sel.gpus[0].describe(), "GPU 0 NVIDIA H200");
    EXPECT_EQ(sel.gpus[0].problem, "no NVENC engine");
    EXPECT_EQ(sel.gpus[1].problem, "");
    EXPECT_EQ(sel.gpus[1].encoder, "ladder-nvenc") << "ladder drives NVENC unless told otherwise";
    EXPECT_EQ(sel.gpus[1].device, "1");
    EXPECT_EQ(sel.gpus[2].encoder, "av1_qsv");
    EXPECT_EQ(sel.gpus[2].device, "/dev/dri/renderD129");
    EXPECT_EQ(sel.gpus[2].describe(), "GPU 2 Intel(R) Arc(TM) A380 Graphics");
    EXPECT_TRUE(sel.absent.empty());
    EXPECT_EQ(describe_unusable(sel), "GPU 0 NVIDIA H200: no NVENC engine");
}

TEST(EncodePolicy, VendorAndListPoliciesSelectOnlyTheirDevices) {
    const auto nv = select_gpus(parse_encode_policy("nvidia"), machine());
    ASSERT_EQ(nv.gpus.size(), 2u);
    for (const auto& c : nv.gpus) EXPECT_EQ(c.kind, DeviceKind::nvidia);
    const auto in = select_gpus(parse_encode_policy("intel"), machine());
    ASSERT_EQ(in.gpus.size(), 1u);
    EXPECT_EQ(in.gpus[0].index, 2);
    const auto list = select_gpus(parse_encode_policy("gpu:2,1"), machine());
    ASSERT_EQ(list.gpus.size(), 2u);
    EXPECT_EQ(list.gpus[0].index, 2);
    EXPECT_EQ(list.gpus[1].index, 1);
    EXPECT_TRUE(select_gpus(parse_encode_policy("cpu"), machine()).gpus.empty());
}

TEST(EncodePolicy, AGpuIndexTheMachineLacksIsAnError) {
    try {
        select_gpus(parse_encode_policy("gpu:0,7"), machine());
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no GPU 7"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("0 to 2"), std::string::npos) << e.what();
    }
    EXPECT_THROW(select_gpus(parse_encode_policy("gpu:0"), DeviceInventory{}), std::invalid_argument);
}

TEST(EncodePolicy, AnFfmpegWithoutTheHardwareEncoderMakesAGpuUnusableOnlyForFfmpegsClient) {
    DeviceInventory inv = machine();
    inv.ffmpeg_av1_nvenc = false;
    inv.ffmpeg_version = "5.1.6";
    EncodePolicy policy = parse_encode_policy("gpu:1");
    policy.nvenc = NvencClient::ffmpeg;
    const auto sel = select_gpus(policy, inv);
    ASSERT_EQ(sel.gpus.size(), 1u);
    EXPECT_EQ(sel.gpus[0].encoder, "av1_nvenc");
    EXPECT_NE(sel.gpus[0].problem.find("no av1_nvenc"), std::string::npos) << sel.gpus[0].problem;
    EXPECT_NE(sel.gpus[0].problem.find("5.1.6"), std::string::npos) << sel.gpus[0].problem;
    // ladder's own client needs nothing of FFmpeg's encoder.
    const auto own = select_gpus(parse_encode_policy("gpu:1"), inv);
    ASSERT_EQ(own.gpus.size(), 1u);
    EXPECT_EQ(own.gpus[0].encoder, "ladder-nvenc");
    EXPECT_EQ(own.gpus[0].problem, "");
}

TEST(EncodePolicy, NoGpusAtAllIsReportedPerFamily) {
    DeviceInventory inv;
    inv.nvidia_status = "NVML library libnvidia-ml.so.1 not found";
    inv.intel_status = "oneVPL library libvpl.so.2 not found";
    const auto sel = select_gpus(parse_encode_policy("auto"), inv);
    EXPECT_TRUE(sel.gpus.empty());
    EXPECT_EQ(describe_unusable(sel), "no NVIDIA GPU: NVML library libnvidia-ml.so.1 not found; "
                                      "no Intel GPU: oneVPL library libvpl.so.2 not found");
    EXPECT_EQ(select_gpus(parse_encode_policy("intel"), inv).absent.size(), 1u);
}

TEST(EncodePolicy, SlotsPerGpuSessionWithLabelsAndDevices) {
    const auto sel = select_gpus(parse_encode_policy("all-gpus"), machine());
    const std::vector<GpuCandidate> usable{sel.gpus[1], sel.gpus[2]};
    const auto slots = make_gpu_slots(usable, 2, 0);
    ASSERT_EQ(slots.size(), 4u);
    EXPECT_EQ(slots[0].label, "gpu1:nvenc");
    EXPECT_EQ(slots[1].label, "gpu1:nvenc.2");
    EXPECT_EQ(slots[2].label, "gpu2:qsv");
    EXPECT_EQ(slots[3].label, "gpu2:qsv.2");
    for (int i = 0; i < 4; ++i) EXPECT_EQ(slots[static_cast<std::size_t>(i)].id, i);
    EXPECT_EQ(slots[0].kind, DeviceKind::nvidia);
    EXPECT_EQ(slots[0].device, "1");
    EXPECT_EQ(slots[0].device_index, 1);
    EXPECT_EQ(slots[3].encoder, "av1_qsv");
    EXPECT_EQ(slots[3].device, "/dev/dri/renderD129");
}

GpuCandidate nvenc(int index, std::optional<int> shared_limit, int engines = 0) {
    return GpuCandidate{index, DeviceKind::nvidia, "GPU", "av1_nvenc", std::to_string(index), "", shared_limit, engines};
}

TEST(EncodePolicy, GeForceCardsShareTheirSessionCapEvenly) {
    // Two GeForce cards under the driver's cap of 8, asked for 6 each: 8 in
    // all, 4 each; a data-center card next to them keeps its 6.
    const std::vector<GpuCandidate> usable{nvenc(0, 8), nvenc(1, 8), nvenc(2, std::nullopt)};
    EXPECT_EQ(sessions_per_candidate(usable, 6), (std::vector<int>{4, 4, 6}));
    const auto slots = make_gpu_slots(usable, 6, 0);
    ASSERT_EQ(slots.size(), 14u);
    EXPECT_EQ(slots[3].label, "gpu0:nvenc.4");
    EXPECT_EQ(slots[4].label, "gpu1:nvenc");
    // 9 asked of 8: taken in turn.
    EXPECT_EQ(sessions_per_candidate({nvenc(0, 8), nvenc(1, 8), nvenc(2, 8)}, 3), (std::vector<int>{3, 3, 2}));
}

TEST(EncodePolicy, UnderTheCapEveryGpuGetsWhatWasAsked) {
    EXPECT_EQ(sessions_per_candidate({nvenc(0, 8), nvenc(1, 8)}, 4), (std::vector<int>{4, 4}));
    EXPECT_EQ(sessions_per_candidate({nvenc(0, std::nullopt)}, 16), (std::vector<int>{16}));
}

TEST(EncodePolicy, ByDefaultEachGpuGetsOneSessionPerNvencEngine) {
    // An L4 (2 engines), an L40S (3), a card whose driver does not say (1).
    EXPECT_EQ(sessions_per_candidate({nvenc(0, std::nullopt, 2), nvenc(1, std::nullopt, 3), nvenc(2, std::nullopt, 0)}, 0),
              (std::vector<int>{2, 3, 1}));
    EXPECT_EQ(sessions_per_candidate({nvenc(0, std::nullopt, 2)}, 4), (std::vector<int>{4})) << "asked for: as asked";
    // Five GeForce cards with 2 engines each want 10 sessions; the cap is 8.
    std::vector<GpuCandidate> geforce;
    for (int i = 0; i < 5; ++i) geforce.push_back(nvenc(i, 8, 2));
    EXPECT_EQ(sessions_per_candidate(geforce, 0), (std::vector<int>{2, 2, 2, 1, 1}));
}

}  // namespace
}  // namespace ladder::gpu
