// ladder's NVENC sessions on the stand-in NVIDIA driver (tests/standin/README.md),
// as standin_nvenc_test.cpp runs them (once per NVENC client): how many
// sessions a GPU slot opens and when, where decoding happens, which GPUs are
// touched, and what a refused, capped or lost GPU does to a run. The
// bitstream is libaom's, not NVENC's: these tests prove the plumbing, not
// NVENC's quality or speed.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hls_tools.hpp"
#include "media_tools.hpp"
#include "standin_nvenc_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace standin;

TEST(StandInNvenc, AGpuSlotOpensOneNvencSessionPerRung) {
    SKIP_WITHOUT_STANDIN();
    // 40 one-second chunks of each of two rungs on two slots of one GPU, in
    // sessions of at most 4 chunks: each slot comes back to each rung many
    // times and goes on with the NVENC session it left open there, at
    // whichever chunk is next (the other slot took the ones between), with
    // a forced key frame.
    const Driver driver("standin-long-sessions", 1);
    const fs::path src = make_clip("standin-40s", {320, 180, "25", 40.0, false, ""});
    const fs::path out = fresh_dir("standin-long-sessions");
    const ProcessResult r =
        run_on_standin({"encode", src.string(), "-o", out.string(), "--policy", "all-gpus", "--sessions-per-gpu", "2",
                    "--session-chunks", "4", "--rung", "180p=320x180@300", "--rung", "90p=160x90@100",
                    "--segment-seconds", "1", "--progress", "none"},
                   driver.env, 240);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_valid(out);
    const json report = report_of(out);
    ASSERT_EQ(report.at("slots").size(), 2u);
    int chunks = 0, opened = 0, sessions = 0;
    for (const json& slot : report.at("slots")) {
        chunks += slot.at("chunks").get<int>();
        opened += slot.at("encoders_opened").get<int>();
        sessions += slot.at("sessions").get<int>();
    }
    EXPECT_EQ(chunks, 80);
    EXPECT_GE(sessions, 20) << "sessions of at most 4 chunks";
    // Encoders are the GPU's: at most one per slot and rung in all, those
    // opened ahead and never used included.
    opened += report.at("gpu_encoders_never_used").get<int>();
    EXPECT_LE(opened, 4) << report.at("sessions").dump();
    EXPECT_EQ(driver.events("open").at(0), opened + 2)
        << "the run's sessions, and the two probes (inventory, pre-flight)\n" << driver.log();
    EXPECT_EQ(driver.events("close").at(0), opened + 2) << driver.log();
    bool jumped = false;  // a slot's session went on past chunks another slot took
    for (const json& a : report.at("sessions"))
        for (const json& b : report.at("sessions"))
            jumped |= a.at("slot") == b.at("slot") && a.at("rung") == b.at("rung") && !b.at("opened_encoder").get<bool>() &&
                      b.at("chunks").at(0).get<int>() > a.at("chunks").back().get<int>() + 1;
    EXPECT_TRUE(jumped) << report.at("sessions").dump();
    // With ladder's client each slot opened its first NVENC session before
    // its first chunk was cut, one slot per rung, and its first session went
    // on in it (the driver's opens above count it once: not opened again).
    // FFmpeg's av1_nvenc opens with its first frames: nothing ahead.
    std::map<std::string, json> first;  // by slot
    for (const json& session : report.at("sessions")) first.try_emplace(session.at("slot").get<std::string>(), session);
    ASSERT_EQ(first.size(), 2u);
    std::set<std::string> rungs_opened_ahead;
    for (const auto& [slot, session] : first) {
        EXPECT_EQ(session.at("opened_ahead").get<bool>(), nvenc_client() != "ffmpeg") << session.dump();
        rungs_opened_ahead.insert(session.at("rung").get<std::string>());
    }
    EXPECT_EQ(rungs_opened_ahead.size(), 2u) << "one slot per rung";
    if (nvenc_client() != "ffmpeg") {
        // Two encoders per rung were opened before the first chunk: no
        // session opened one between chunks, even where both slots shared
        // a rung.
        EXPECT_EQ(report.at("gpu_encoders_opened_ahead").get<int>(), 4);
        for (const json& session : report.at("sessions"))
            EXPECT_FALSE(session.at("opened_encoder").get<bool>()) << session.dump();
    }
    for (const char* rung : {"180p", "90p"}) {
        EXPECT_EQ(key_frame_indexes(out / rung / "index.m3u8").size(), 40u) << rung << ": a key frame at every chunk start";
        EXPECT_EQ(decode_errors(out / rung / "index.m3u8"), "") << rung;
    }
}

// Two slots of one GPU on the ladder's only rung: each slot opens ahead on
// that rung as it first claims, and the GPU holds no more encoders for the
// rung than it has slots. (The old code opened a third only when one slot
// claimed after the other's openers had started: this run catches that
// only when timing gives it; IdleEncodersTest checks the count itself.)
TEST(StandInNvenc, TwoSlotsOnOneRungOpenAtMostTwoEncoders) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-one-rung", 1);
    const Encoded e = encode_clip(driver, "standin-one-rung",
                                  make_clip("standin-one-rung", {320, 180, "25", 8.0, false, ""}),
                                  {"--policy", "all-gpus", "--sessions-per-gpu", "2", "--rung", "180p=320x180@300",
                                   "--segment-seconds", "1"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    const fs::path& out = e.out;
    const json& report = e.report;
    expect_valid(out);
    ASSERT_EQ(report.at("slots").size(), 2u);
    // The probes (inventory, pre-flight) open and close one each before.
    EXPECT_LE(driver.most_open_at_once().at(0), 2) << driver.log();
    if (nvenc_client() != "ffmpeg") {
        EXPECT_EQ(report.at("gpu_encoders_opened_ahead").get<int>(), 2) << report.at("sessions").dump();
    }
    EXPECT_EQ(probe(out / "180p" / "index.m3u8").video.at(0).frames, 200);
}

// GPU sessions fed by the CPU decode: a lane per GPU from the start, not
// one lane grown while the sessions wait (on 2 cores the run may have one
// lane only: --max-decoders lets it have more).
TEST(StandInNvenc, GpuSessionsFedByTheCpuDecodeStartALanePerGpu) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-cpu-lanes", 2);
    const fs::path src = make_clip("standin-cpu-lanes", {320, 240, "25", 8.0, false, ""});
    const fs::path out = fresh_dir("standin-cpu-lanes");
    const ProcessResult r = run_on_standin({"encode", src.string(), "-o", out.string(), "--policy", "all-gpus",
                                            "--decode", "cpu", "--max-decoders", "4", "--rung", "240p=320x240@500",
                                            "--rung", "120p=160x120@150", "--segment-seconds", "1"},
                                           driver.env, 240);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("in 2 lanes at once"), std::string::npos) << r.err;
    const json report = report_of(out);
    EXPECT_GE(report.at("decode_lanes").size(), 2u) << report.at("decode_lanes").dump();
    std::set<std::string> used;  // "gpu0" of "gpu0:nvenc.2"
    for (const auto& [slot, chunks] : chunks_per_slot(report)) used.insert(slot.substr(0, slot.find(':')));
    EXPECT_EQ(used.size(), 2u) << "both GPUs encoded";
    expect_valid(out);
}

TEST(StandInNvenc, PolicyGpu1OpensNothingOnGpu0) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-gpu1", 2);
    const Encoded e = encode(driver, "standin-gpu1", {"--policy", "gpu:1"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    EXPECT_EQ(driver.events("open").count(0), 0u) << driver.log();
    EXPECT_GT(driver.events("open").count(1), 0u) << driver.log();
    for (const auto& [slot, chunks] : chunks_per_slot(e.report)) EXPECT_EQ(slot.rfind("gpu1:nvenc", 0), 0u) << slot;
}

TEST(StandInNvenc, ASessionLimitRefusalIsRetriedElsewhereAndTheOutputValidates) {
    SKIP_WITHOUT_STANDIN();
    // One session for the whole system, as on an old GeForce driver: the
    // second GPU's sessions are refused with NV_ENC_ERR_OUT_OF_MEMORY.
    const Driver driver("standin-limit", 2, {"LADDER_STANDIN_SESSIONS_PER_SYSTEM=1"});
    const Encoded e = encode(driver, "standin-limit", {"--policy", "all-gpus"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    EXPECT_FALSE(driver.events("refused").empty()) << "the limit was never reached: the test proves nothing\n"
                                                    << driver.log();
    EXPECT_FALSE(e.report.at("retries").empty()) << e.report.dump();
    // Four slots (two engines per GPU) and one session for the system: the
    // refusals are the slots' failures, not the chunks' tries.
    for (const json& t : e.report.at("retries")) EXPECT_EQ(t.at("cause"), "open refused") << t.dump();
    for (const char* rung : {"720p", "540p", "360p"})
        EXPECT_EQ(probe(e.out / rung / "index.m3u8").video.at(0).frames, 200) << rung;
}

TEST(StandInNvenc, GeForceSlotsStayUnderTheDriversSessionCapCountingTheProbes) {
    SKIP_WITHOUT_STANDIN();
    // Two GeForce cards and a driver that refuses a ninth session on the
    // system: 6 sessions per GPU asked, 8 slots made, nothing refused (the
    // pre-flight's sessions are closed before encoding starts).
    const Driver driver("standin-geforce-cap", 2,
                        {"LADDER_STANDIN_GPU_NAME=NVIDIA GeForce RTX 4090", "LADDER_STANDIN_SESSIONS_PER_SYSTEM=8"});
    const Encoded e = encode(driver, "standin-geforce-cap", {"--policy", "all-gpus", "--sessions-per-gpu", "6"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    EXPECT_EQ(e.report.at("slots").size(), 8u) << e.report.at("slots").dump();
    EXPECT_TRUE(driver.events("refused").empty()) << driver.log();
    EXPECT_TRUE(e.report.at("retries").empty()) << e.report.at("retries").dump();
    int most = 0;
    for (const auto& [gpu, n] : driver.most_open_at_once()) most += n;
    EXPECT_LE(most, 8) << driver.log();
}

TEST(StandInNvenc, MixedNvencAndCpuSlotsFollowTheSpliceCheck) {
    SKIP_WITHOUT_STANDIN();
    // NVENC paced at 10 frames/s at 1080p (a 720p chunk takes 2 s, a 540p
    // one 1.25 s): the GPU slots, their sessions opened ahead, are busy with
    // their own rungs well after the CPU slot's first chunk of the third
    // came back. At the published pace a GPU slot done with its rung could
    // take that rung's next chunk and be accepted first under strict, and
    // the CPU slot then had nothing.
    const Driver driver("standin-mixed", 2, {"LADDER_STANDIN_PACE=10"});
    // strict: a rung joins chunks of one encoder kind only (the stand-in's
    // libaom and SVT-AV1 write different sequence headers).
    // One session per GPU, so that the CPU slot gets rungs of its own.
    const Encoded strict =
        encode(driver, "standin-mixed-strict", {"--policy", "all-gpus", "--sessions-per-gpu", "1", "--cpu-slots", "1"});
    ASSERT_EQ(strict.result.exit_code, 0) << strict.result.err;
    expect_valid(strict.out);
    std::map<std::string, std::set<std::string>> encoders;
    for (const json& s : strict.report.at("sessions"))
        encoders[s.at("rung").get<std::string>()].insert(s.at("encoder").get<std::string>());
    std::set<std::string> kinds;
    for (const auto& [rung, used] : encoders) {
        EXPECT_EQ(used.size(), 1u) << rung << " joined chunks of several encoders under strict: " << strict.report.dump();
        kinds.insert(used.begin(), used.end());
    }
    EXPECT_EQ(kinds, (std::set<std::string>{nvenc_encoder(), "libsvtav1"})) << "both kinds of slot encoded";
    // config: only av1C must agree, and it does (the stand-in writes the
    // colour description FFmpeg asks NVENC for), so nothing is refused.
    const Encoded config = encode(driver, "standin-mixed-config",
                                  {"--policy", "all-gpus", "--cpu-slots", "1", "--splice-check", "config"});
    ASSERT_EQ(config.result.exit_code, 0) << config.result.err;
    expect_valid(config.out);
    EXPECT_TRUE(config.report.at("mismatches").empty()) << config.report.at("mismatches").dump();
    for (const char* rung : {"720p", "540p", "360p"})
        EXPECT_EQ(decode_errors(config.out / rung / "index.m3u8"), "") << rung;
}

TEST(StandInNvenc, AGpuLostMidRunIsQuarantinedAndItsChunksFinishElsewhere) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-lost", 2, {"LADDER_STANDIN_LOSE_GPU=1@20"});
    const Encoded e = encode(driver, "standin-lost", {"--policy", "all-gpus"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    EXPECT_FALSE(driver.events("lost").empty()) << driver.log();
    bool quarantined = false;
    for (const json& slot : e.report.at("slots"))
        if (slot.at("label") == "gpu1:nvenc") quarantined = slot.at("quarantined").get<bool>();
    EXPECT_TRUE(quarantined) << e.report.at("slots").dump();
    for (const char* rung : {"720p", "540p", "360p"}) {
        EXPECT_EQ(probe(e.out / rung / "index.m3u8").video.at(0).frames, 200) << rung;
        EXPECT_EQ(decode_errors(e.out / rung / "index.m3u8"), "") << rung;
    }
}

}  // namespace
}  // namespace ladder::test
