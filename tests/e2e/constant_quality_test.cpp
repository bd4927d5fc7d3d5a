// A rung with "crf" in its ladder file is encoded at that constant quality
// (SVT-AV1) instead of a rate: a lower CRF makes more bits of the same
// pictures, the report names each rung's CRF and judges its rate against
// the rung's bitrate_kbps like any other, its files are the same byte for
// byte on one slot and on two, a plan carries the CRF to its
// shards, and a rung that asks for a CRF from an encoder without one is
// refused before anything is written.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

fs::path crf_ladder(const fs::path& dir) {
    const fs::path file = dir / "crf.json";
    std::ofstream(file) << R"({"rungs": [
        {"name": "fine", "width": 320, "height": 180, "bitrate_kbps": 400, "crf": 20},
        {"name": "coarse", "width": 320, "height": 180, "bitrate_kbps": 400, "crf": 55},
        {"name": "rate", "width": 320, "height": 180, "bitrate_kbps": 400}]})";
    return file;
}

TEST(ConstantQuality, ALowerCrfMakesMoreBitsAndTheReportSaysWhichCrf) {
    const fs::path src = make_clip("crf-src", {320, 180, "25", 2.0, false, ""});
    const fs::path dir = fresh_dir("crf-encode");
    const fs::path out = dir / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--ladder",
                                        crf_ladder(dir).string(), "--preset", "12", "--format", "mp4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json report = nlohmann::json::parse(read_text(out / "report.json"));
    const auto& rungs = report.at("rungs");
    ASSERT_EQ(rungs.size(), 3u);
    EXPECT_EQ(rungs[0].at("crf"), 20);
    EXPECT_EQ(rungs[1].at("crf"), 55);
    EXPECT_FALSE(rungs[2].contains("crf"));
    const auto bytes = [&](int i) { return rungs[i].at("video_bytes").get<double>(); };
    EXPECT_GT(bytes(0), 2 * bytes(1)) << "CRF 20 against CRF 55 of the same pictures";
    for (const auto& g : rungs) {
        EXPECT_TRUE(g.contains("rate_verdict")) << g.dump();
        EXPECT_EQ(probe(g.at("output").get<std::string>()).video.at(0).frames, 50) << g.dump();
        EXPECT_EQ(decode_errors(g.at("output").get<std::string>()), "");
    }
}

// One chunk per session at a constant quality: the same bytes whatever
// the slots (a chunk alone does not depend on which chunks timing put
// before it in a session).
TEST(ConstantQuality, ACrfRungIsTheSameByteForByteOnOneSlotAndOnTwo) {
    const fs::path src = make_clip("crf-same-src", {320, 180, "25", 16.0, false, ""});
    const fs::path dir = fresh_dir("crf-same");
    std::vector<std::string> files[2];
    for (int slots : {1, 2}) {
        const fs::path out = dir / ("slots" + std::to_string(slots));
        const ProcessResult r =
            run_ladder({"encode", src.string(), "-o", out.string(), "--ladder", crf_ladder(dir).string(), "--preset",
                        "12", "--cpu-slots", std::to_string(slots), "--format", "mp4"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const nlohmann::json report = nlohmann::json::parse(read_text(out / "report.json"));
        for (const auto& s : report.at("sessions")) {
            if (s.at("rung") == "rate") continue;
            EXPECT_EQ(s.at("chunks").size(), 1u) << s.dump();
        }
        files[slots - 1] = {read_text(out / "fine.mp4"), read_text(out / "coarse.mp4")};
    }
    EXPECT_TRUE(files[0][0] == files[1][0]) << "fine.mp4 differs between 1 and 2 slots";
    EXPECT_TRUE(files[0][1] == files[1][1]) << "coarse.mp4 differs between 1 and 2 slots";
}

// SVT-AV1 2.x's output of screen-like pictures (testsrc2, which its
// screen-content tools take up) can differ from run to run on more than one
// thread (docs/hardening.md, "SVT-AV1 2.x and threads"); on one it does not.
// --cpu-threads 1 gives every session one thread, the run's tail included,
// so one slot and two, run after run, give the same bytes with any SVT-AV1.
TEST(ConstantQuality, OneThreadPerSessionIsTheSameByteForByteWithAnySvtAv1) {
    const fs::path src = make_clip("crf-one-thread-src", {320, 180, "25", 8.0, false, ""});
    const fs::path dir = fresh_dir("crf-one-thread");
    const fs::path ladder = dir / "screen.json";
    std::ofstream(ladder) << R"({"rungs": [{"name": "screen", "width": 320, "height": 180, "bitrate_kbps": 400, "crf": 30}]})";
    std::vector<std::string> files;
    for (const char* slots : {"1", "2", "1", "2"}) {
        const fs::path out = dir / ("run" + std::to_string(files.size()));
        const ProcessResult r =
            run_ladder({"encode", src.string(), "-o", out.string(), "--ladder", ladder.string(), "--preset", "12",
                        "--cpu-slots", slots, "--cpu-threads", "1", "--format", "mp4"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const nlohmann::json report = nlohmann::json::parse(read_text(out / "report.json"));
        ASSERT_EQ(report.at("sessions").size(), 4u) << "one session per 2-s chunk";
        for (const auto& s : report.at("sessions")) EXPECT_EQ(s.at("threads"), 1) << s.dump();
        files.push_back(read_text(out / "screen.mp4"));
    }
    for (std::size_t i = 1; i < files.size(); ++i) EXPECT_TRUE(files[i] == files[0]) << "run " << i << " differs";
}

// The video packets of SRC encoded by FFmpeg's own libsvtav1 at CRF 30,
// preset 8, one thread, a 2-s GOP and the given mini-GOP (hierarchical levels).
std::vector<double> ffmpeg_crf_packets(const fs::path& src, const fs::path& out, int levels) {
    const ProcessResult r =
        run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", src.string(), "-c:v", "libsvtav1",
                     "-preset", "8", "-crf", "30", "-g", "50", "-svtav1-params",
                     "lp=1:hierarchical-levels=" + std::to_string(levels), "-an", out.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return video_packet_sizes(out);
}

// A CRF session says its mini-GOP (16 frames: 4 hierarchical levels), so
// that the encode does not change with the FFmpeg that wraps SVT-AV1 (5.1
// set 16 itself; 6.0 and later leave SVT-AV1's own, 32 at preset 8) and the
// budget chooses the same CRFs on every machine. Every packet after the
// first (whose sequence header carries ladder's colour tags) is the size
// FFmpeg's makes with 4 levels said, and not what 5 make.
TEST(ConstantQuality, ACrfSessionSaysItsMiniGopWhateverTheFfmpeg) {
    const fs::path src = make_clip("crf-mini-gop-src", {320, 180, "25", 2.0, false, ""});
    const fs::path dir = fresh_dir("crf-mini-gop");
    const fs::path ladder = dir / "one.json";
    std::ofstream(ladder) << R"({"rungs": [{"name": "one", "width": 320, "height": 180,
                                            "bitrate_kbps": 400, "crf": 30}]})";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", (dir / "out").string(), "--ladder",
                                        ladder.string(), "--preset", "8", "--cpu-threads", "1", "--format", "mp4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<double> ours = video_packet_sizes(dir / "out" / "one.mp4");
    std::vector<double> four = ffmpeg_crf_packets(src, dir / "four.mp4", 4);
    std::vector<double> five = ffmpeg_crf_packets(src, dir / "five.mp4", 5);
    ASSERT_EQ(ours.size(), 50u);
    ASSERT_EQ(four.size(), 50u);
    ASSERT_EQ(five.size(), 50u);
    ours.erase(ours.begin());
    four.erase(four.begin());
    five.erase(five.begin());
    EXPECT_EQ(ours, four) << "ladder's CRF chunk is not SVT-AV1's encode at 4 levels";
    EXPECT_NE(four, five) << "4 and 5 levels make the same packets here: the test cannot tell them apart";
}

TEST(ConstantQuality, APlanCarriesEachRungsCrfToItsShards) {
    const fs::path src = make_clip("crf-plan-src", {320, 180, "25", 2.0, false, ""});
    const fs::path dir = fresh_dir("crf-plan");
    const ProcessResult plan = run_ladder({"plan", src.string(), "-o", (dir / "work").string(), "--ladder",
                                           crf_ladder(dir).string(), "--preset", "12"});
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    const nlohmann::json j = nlohmann::json::parse(read_text(dir / "work" / "plan.json"));
    const auto& rungs = j.at("ladder").at("rungs");
    EXPECT_EQ(rungs.at(0).at("crf"), 20);
    EXPECT_EQ(rungs.at(1).at("crf"), 55);
    EXPECT_FALSE(rungs.at(2).contains("crf"));
}

TEST(ConstantQuality, AnEncoderWithoutACrfIsRefusedBeforeAnythingIsWritten) {
    const fs::path src = make_clip("crf-aom-src", {320, 180, "25", 1.0, false, ""});
    const fs::path dir = fresh_dir("crf-aom");
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", (dir / "out").string(), "--ladder",
                                        crf_ladder(dir).string(), "--encoder", "aom", "--format", "mp4"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("crf 20 needs an encoder that takes a constant quality (SVT-AV1)"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir / "out" / "fine.mp4"));
}

}  // namespace
}  // namespace ladder::test
