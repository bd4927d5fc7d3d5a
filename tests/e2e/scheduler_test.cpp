// The scheduler at work on real encoders: helper dispatch against one fixed
// worker per rung, mixed encoder kinds under the codec invariant, and real
// encoders made to fail from outside the binary (tests/fakes/).
#include <gtest/gtest.h>

#include <csignal>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <sstream>
#include <thread>

#include "av/logging.hpp"
#include "engine/run/job.hpp"
#include "encoder_faults.hpp"
#include "engine/check/ladder_validator.hpp"
#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

// A real encoder that first sleeps in proportion to the chunk's pixels,
// divided by its slot's speed: slots of different speeds with a known cost.
class SlowEncoder final : public engine::EncoderBackend {
public:
    SlowEncoder(std::unique_ptr<engine::EncoderBackend> real, double seconds_per_megapixel, double speed)
        : real_(std::move(real)), per_mp_(seconds_per_megapixel), speed_(speed) {}
    engine::EncodedChunk encode(const engine::RawChunk& chunk, std::stop_token stop) override {
        const double mp = chunk.frames.size() * chunk.frames[0]->width * chunk.frames[0]->height / 1e6;
        std::this_thread::sleep_for(std::chrono::duration<double>(mp * per_mp_ / speed_));
        return real_->encode(chunk, stop);
    }
    void probe() override { real_->probe(); }

private:
    std::unique_ptr<engine::EncoderBackend> real_;
    double per_mp_;
    double speed_;
};

engine::JobOptions four_rungs(const fs::path& src, const fs::path& out) {
    engine::JobOptions o;
    o.input = src;
    o.outdir = out;
    // Small frames keep the real encoder's share of the time small, so the
    // sleep (proportional to pixels) decides the schedule even on a busy
    // machine. One big rung and three small ones: the shape where one fixed
    // worker per rung leaves most slots idle.
    o.ladder = engine::LadderSpec{{{"240p", 320, 240, 300, 0, 0},
                                   {"96p", 128, 96, 150, 0, 0},
                                   {"72p", 96, 72, 100, 0, 0},
                                   {"64p", 80, 64, 80, 0, 0}}};
    o.preset = 13;
    o.cpu_slots = 3;
    o.segment_seconds = 0.2;  // 5-frame chunks, 10 per rung
    o.audio.enabled = false;
    o.queue_chunks = 100;     // the fixed baseline must not stall the pump
    return o;
}

engine::JobSeams slow_encoders(engine::DispatchMode dispatch) {
    engine::JobSeams seams;
    seams.encoder_factory = [](const gpu::EncoderSlot& slot, const engine::EncoderSettings& s) {
        const double speed = slot.id == 2 ? 0.5 : 1.0;  // the third slot is twice as slow
        return std::make_unique<SlowEncoder>(engine::make_encoder_backend(slot, s), 1.6, speed);
    };
    seams.dispatch = dispatch;
    return seams;
}

void expect_every_chunk_once(const engine::JobReport& r, int rungs, int chunks_per_rung) {
    std::set<std::pair<int, int>> seen;
    for (const auto& c : r.chunks) EXPECT_TRUE(seen.insert({c.rung, c.index}).second) << c.rung << "/" << c.index;
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(rungs * chunks_per_rung));
}

TEST(Scheduler, HelpersCutTheMakespanOfAnUnevenLadder) {
    av::quiet_library_logs();
    const fs::path src = make_clip("sched320", {320, 240, "25", 2.0, false, ""});
    engine::NullProgressSink sink;

    engine::JobOptions fixed = four_rungs(src, fresh_dir("sched-fixed"));
    const engine::JobReport f = engine::run_job(fixed, sink, {}, slow_encoders(engine::DispatchMode::fixed));

    engine::JobOptions helpers = four_rungs(src, fresh_dir("sched-helpers"));
    const engine::JobReport h = engine::run_job(helpers, sink, {}, slow_encoders(engine::DispatchMode::helpers));

    std::printf("[ metric   ] makespan fixed %.2f s, helpers %.2f s, ratio %.2f\n", f.wall_seconds, h.wall_seconds,
                h.wall_seconds / f.wall_seconds);
    EXPECT_LE(h.wall_seconds, 0.75 * f.wall_seconds) << "helpers cut the makespan by at least 25%";
    if (std::getenv("LADDER_PRINT_TIMELINE"))
        for (const auto* r : {&f, &h})
            for (const auto& c : r->chunks)
                std::printf("  %s rung %d chunk %d %s %.2f-%.2f\n", r == &f ? "fixed" : "helpers", c.rung, c.index,
                            c.slot.c_str(), c.start_seconds, c.end_seconds);
    for (const auto* r : {&f, &h}) {
        expect_every_chunk_once(*r, 4, 10);
        for (const auto& rung : r->rungs) EXPECT_EQ(rung.frames, 50) << rung.name;
    }
    // With helpers, the big rung was worked on by more than one slot.
    std::set<std::string> on_big;
    for (const auto& c : h.chunks)
        if (c.rung == 0) on_big.insert(c.slot);
    EXPECT_GE(on_big.size(), 2u);
    EXPECT_TRUE(engine::validate_hls_ladder(helpers.outdir).problems.empty());
}

// Every segment of a rung carries the same sequence header (strict splice).
std::set<std::string> encoders_per_rung(const engine::JobReport& r, int rung) {
    std::set<std::string> kinds;
    for (const auto& c : r.chunks)
        if (c.rung == rung) kinds.insert(c.encoder);
    return kinds;
}

TEST(Scheduler, MixedEncodersUnderAStrictContractEachRungKeepsOneKind) {
    av::quiet_library_logs();
    const fs::path src = make_clip("mixed", {320, 240, "25", 3.0, true, ""});
    engine::JobOptions o;
    o.input = src;
    o.outdir = fresh_dir("mixed-strict");
    o.ladder = engine::LadderSpec{{{"240p", 320, 240, 400, 0, 0}, {"120p", 160, 120, 150, 0, 0}}};
    o.cpu_encoders = {{"libsvtav1", 2}, {"libaom-av1", 1}};
    o.preset = 8;  // libaom cpu-used 8; SVT-AV1 8
    o.segment_seconds = 0.5;
    engine::NullProgressSink sink;
    const engine::JobReport r = engine::run_job(o, sink);
    for (int rung = 0; rung < 2; ++rung) {
        const auto kinds = encoders_per_rung(r, rung);
        EXPECT_EQ(kinds.size(), 1u) << "strict: one encoder kind per rung";
        EXPECT_EQ(r.rungs[static_cast<std::size_t>(rung)].frames, 75);
    }
    int refused = 0;
    for (const auto& m : r.mismatches) {
        std::printf("[ metric   ] rung %s refused %d chunk(s) from %s\n", m.rung.c_str(), m.count, m.encoder.c_str());
        refused += m.count;
        EXPECT_FALSE(m.fields.empty());
    }
    std::printf("[ metric   ] %d refusal(s); slots:", refused);
    for (const auto& s : r.slots) std::printf(" %s=%d", s.label.c_str(), s.chunks);
    std::printf("\n");
    expect_every_chunk_once(r, 2, 6);
    const auto problems = engine::validate_hls_ladder(o.outdir).problems;
    EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems[0]);

    o.outdir = fresh_dir("mixed-config");
    o.splice_check = mux::SpliceCheck::config;
    const engine::JobReport c = engine::run_job(o, sink);
    for (int rung = 0; rung < 2; ++rung) EXPECT_EQ(c.rungs[static_cast<std::size_t>(rung)].frames, 75);
    expect_every_chunk_once(c, 2, 6);
    EXPECT_TRUE(engine::validate_hls_ladder(o.outdir).problems.empty());
}

const std::vector<std::string> kFaultRun{"--rung", "120p=160x120@200", "--preset", "12", "--segment-seconds", "0.5",
                                         "--cpu-slots", "2"};

std::vector<std::string> fault_args(const fs::path& src, const fs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> a{"encode", src.string(), "-o", out.string()};
    a.insert(a.end(), kFaultRun.begin(), kFaultRun.end());
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

nlohmann::json read_report(const fs::path& out) { return nlohmann::json::parse(read_text(out / "report.json")); }

std::vector<std::string> lines_of(const fs::path& file) {
    std::vector<std::string> lines;
    std::istringstream in(fs::exists(file) ? read_text(file) : "");
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The encoder of slot cpu0 fails twice in the middle of a chunk, holding
// frames it was sent and has not returned; the same in an encoder process
// and in ladder's own (--isolation none).
class MidChunkFault : public ::testing::TestWithParam<std::string> {};

TEST_P(MidChunkFault, TheChunkIsRetriedOnAnotherSlotAndTheOutputsAreWhole) {
    const std::string isolation = GetParam();
    const fs::path src = make_clip("faults", {160, 120, "25", 3.0, true, ""});
    const fs::path out = fresh_dir("faults-mid-" + isolation);
    const fs::path log = fresh_dir("faults-mid-log-" + isolation) / "failures";
    // vbr: one pass, so the chunks retried are the ones the outputs hold.
    ProcessResult r = run_ladder(fault_args(src, out, {"--isolation", isolation, "--rate-control", "vbr"}),
                                 failing_slots("cpu0:svt=mid*2", {"LADDER_TEST_FAIL_LOG=" + log.string()}));
    ASSERT_EQ(r.exit_code, 0) << r.err;

    // Each failure came with frames in flight: sent, never returned. (Two
    // at most; one when the other slot took every chunk after the first.)
    std::set<long long> failed_first_frames;
    const auto failures = lines_of(log);
    ASSERT_GE(failures.size(), 1u) << "the fault never happened";
    ASSERT_LE(failures.size(), 2u);
    for (const auto& line : failures) {
        char slot[32] = {};
        long long first = -1;
        int sent = 0, received = 0;
        ASSERT_EQ(std::sscanf(line.c_str(), "%31s %lld sent %d received %d", slot, &first, &sent, &received), 4)
            << line;
        EXPECT_STREQ(slot, "cpu0:svt");
        EXPECT_GT(sent, received) << "frames in flight when it failed: " << line;
        failed_first_frames.insert(first);
    }

    // Every failed attempt was retried, and each chunk was finished by the
    // other slot.
    const nlohmann::json report = read_report(out);
    ASSERT_EQ(report["retries"].size(), failures.size()) << report["retries"].dump();
    std::set<long long> retried_first_frames;
    for (const auto& retry : report["retries"]) {
        EXPECT_EQ(retry["slot"], "cpu0:svt");
        EXPECT_EQ(retry["cause"], "error");
        EXPECT_NE(retry["error"].get<std::string>().find("sending a frame"), std::string::npos) << retry.dump();
        for (const auto& c : report["chunks"])
            if (c["index"] == retry["chunk"]) {
                EXPECT_EQ(c["slot"], "cpu1:svt") << "retried on another slot: " << c.dump();
                retried_first_frames.insert(c["first_frame"].get<long long>());
            }
    }
    EXPECT_EQ(retried_first_frames, failed_first_frames) << "the chunks that failed are the ones retried";

    // Every chunk once, and the rung whole: all frames, a key frame at every
    // chunk start and nowhere else, a clean decode.
    std::vector<long> chunk_starts;
    std::set<int> indexes;
    long frames = 0;
    for (const auto& c : report["chunks"]) {
        EXPECT_TRUE(indexes.insert(c["index"].get<int>()).second) << c.dump();
        chunk_starts.push_back(c["first_frame"].get<long>());
        frames += c["frames"].get<long>();
    }
    std::sort(chunk_starts.begin(), chunk_starts.end());
    EXPECT_EQ(frames, 75);
    EXPECT_EQ(run_ladder({"validate", out.string()}).exit_code, 0);
    const fs::path rung = out / "120p/index.m3u8";
    EXPECT_EQ(probe(rung).video.at(0).frames, 75);
    EXPECT_EQ(key_frame_indexes(rung), chunk_starts);
    EXPECT_EQ(decode_errors(rung), "");
}

INSTANTIATE_TEST_SUITE_P(Faults, MidChunkFault, ::testing::Values("process", "none"),
                         [](const auto& info) { return info.param; });

TEST(Faults, ASlotThatKeepsFailingIsQuarantinedAndTheRunFinishes) {
    const fs::path src = make_clip("faults", {160, 120, "25", 3.0, true, ""});
    const fs::path out = fresh_dir("faults-quarantine");
    // 2 rungs x 12 chunks: the failing slot meets fresh chunks far more than
    // 3 times while the other slot encodes.
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "120p=160x120@200", "--rung",
                                  "72p=96x72@100", "--preset", "12", "--segment-seconds", "0.25", "--cpu-slots", "2",
                                  "--max-tries", "5"},
                                 failing_slots("cpu0:svt=open"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("cpu0:svt quarantined for the rest of the run after 3 failures in a row"), std::string::npos)
        << r.err;
    EXPECT_EQ(run_ladder({"validate", out.string()}).exit_code, 0);
}

TEST(Faults, ACrashIsReportedOnTheTerminalEvenWhileStderrIsCaptured) {
    // --progress json holds fd 2 in a pipe read by a thread that dies with
    // the process; the crash report must reach the real stderr anyway, and
    // the process must still die of the signal (exit status, core dumps).
    // The encoder crashes in ladder's own process (--isolation none) on
    // every rung's first frame (tests/fakes/crashing_encoder.cpp); even
    // shares keep the complexity analysis's encoder, also in ladder's
    // process with --isolation none, from meeting the crash first.
    const fs::path src = make_clip("faults", {160, 120, "25", 3.0, true, ""});
    const fs::path out = fresh_dir("faults-crash");
    ProcessResult r = run_ladder(
        fault_args(src, out, {"--progress", "json", "--isolation", "none", "--bit-allocation", "even"}),
                                 {std::string("LD_PRELOAD=") + LADDER_TEST_CRASH_LIB, "LADDER_TEST_CRASH_ACTION=segv",
                                  "LADDER_TEST_CRASH_FRAME=0"});
    EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.err;
    EXPECT_NE(r.err.find("ladder: crashed with signal SEGV (Segmentation fault); this is a bug"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("ladder: backtrace"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("EncoderWorker14encode_session"), std::string::npos) << "symbolized frames: " << r.err;
    EXPECT_FALSE(fs::exists(out / "master.m3u8")) << "nothing claims to be complete";
}

TEST(Faults, WhenNoSlotCanEncodeAChunkTheRunFailsNamingIt) {
    const fs::path src = make_clip("faults", {160, 120, "25", 3.0, true, ""});
    const fs::path out = fresh_dir("faults-all");
    ProcessResult r = run_ladder(fault_args(src, out), failing_slots("cpu0:svt=open;cpu1:svt=open"));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("rung 120p: chunk "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("failed on all 3 tries"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cpu0:svt"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cpu1:svt"), std::string::npos) << "tried on the other slot too: " << r.err;
    EXPECT_FALSE(fs::exists(out / "master.m3u8")) << "nothing claims to be complete";
}

TEST(Faults, ARungOnlyAnIncompatibleEncoderCouldFinishFailsInsteadOfHanging) {
    // Rung contract from SVT-AV1 (its slot succeeds once), then the SVT slot
    // fails every time and is quarantined: only libaom is left, which the
    // strict contract refuses. The run must end, naming the rung.
    const fs::path src = make_clip("faults", {160, 120, "25", 3.0, true, ""});
    const fs::path out = fresh_dir("faults-orphan");
    const auto start = std::chrono::steady_clock::now();
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "120p=160x120@200",
                                  "--preset", "8", "--segment-seconds", "0.5", "--cpu-encoders", "svt:1,aom:1",
                                  "--max-tries", "10"},
                                 failing_slots("cpu0:svt=open@1"));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 60.0);
    if (r.exit_code == 0) {
        // libaom made the rung's first chunk, so the contract is libaom's and
        // it can finish alone: also a correct outcome.
        EXPECT_EQ(run_ladder({"validate", out.string()}).exit_code, 0);
    } else {
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("rung 120p: no encoder slot left can encode it"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out / "master.m3u8"));
    }
}

}  // namespace
}  // namespace ladder::test
