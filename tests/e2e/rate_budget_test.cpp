// --rate-control budget: each rung at one constant quality (SVT-AV1 CRF)
// that the rung's own encodes found, so that its average lands within ±5%
// of its target, or under it only at the quality ceiling (CRF 10), which
// the report and the summary say. Rates are measured from the files'
// packets by ffprobe, not from ladder's report. The decision depends on the
// content only: the same bytes on one slot and on two with two decoders,
// and after a run killed part-way is resumed.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The file's video rate from its packets (ffprobe), at 25 fps.
double file_kbps(const fs::path& file, long expected_frames) {
    const std::vector<double> sizes = video_packet_sizes(file);
    EXPECT_EQ(static_cast<long>(sizes.size()), expected_frames) << file;
    double bytes = 0;
    for (double b : sizes) bytes += b;
    return sizes.empty() ? 0 : bytes * 8 / 1000 / (static_cast<double>(sizes.size()) / 25);
}

// Chunks of the outputs that another run journaled (report.json names their
// slot "... (journal)").
int chunks_from_earlier_runs(const fs::path& out) {
    int n = 0;
    const json report = json::parse(read_text(out / "report.json"));
    for (const json& chunk : report.at("chunks"))
        if (chunk.at("slot").get<std::string>().ends_with(" (journal)")) ++n;
    return n;
}

std::vector<std::string> budget_args(const fs::path& src, const fs::path& out) {
    return {"encode",   src.string(), "-o",       out.string(), "--rate-control", "budget", "--rung",
            "180p=320x180@350", "--rung", "90p=160x90@120", "--preset", "12", "--segment-seconds", "1",
            "--format", "mp4"};
}

// One budget encode of src into out with these arguments more: its report
// and its two files' bytes.
struct BudgetRun {
    json report;
    std::string files[2];  // 180p.mp4, 90p.mp4
    std::string err;       // what it printed on stderr
};

BudgetRun run_budget(const fs::path& src, const fs::path& out, const std::vector<std::string>& more) {
    std::vector<std::string> args = budget_args(src, out);
    args.insert(args.end(), more.begin(), more.end());
    const ProcessResult r = run_ladder(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    BudgetRun run;
    run.err = r.err;
    if (r.exit_code != 0) return run;
    run.report = json::parse(read_text(out / "report.json"));
    run.files[0] = read_text(out / "180p.mp4");
    run.files[1] = read_text(out / "90p.mp4");
    return run;
}

void expect_same_files(const BudgetRun& a, const BudgetRun& b) {
    EXPECT_TRUE(a.files[0] == b.files[0]) << "180p.mp4 differs";
    EXPECT_TRUE(a.files[1] == b.files[1]) << "90p.mp4 differs";
}

struct Kind {
    const char* name;
    const char* filter;  // appended to the test pattern
};

// Content nobody tuned the search on: temporal noise over motion (every
// frame new), the same fading to black and back (black at 2 s), and one
// flat colour (which cannot spend its target: the quality ceiling).
const Kind kKinds[] = {
    {"noise", "noise=alls=30:allf=t"},
    {"fade", "noise=alls=20:allf=t,geq=lum='16+(lum(X,Y)-16)*min(1,abs(T-2))':cb='128+(cb(X,Y)-128)*min(1,abs(T-2))'"
             ":cr='128+(cr(X,Y)-128)*min(1,abs(T-2))'"},
    {"flat", "drawbox=x=0:y=0:w=iw:h=ih:color=0x406080:t=fill"},
};

TEST(RateBudget, EveryRungLandsWithinFivePercentOrUnderOnlyAtTheQualityCeiling) {
    for (const Kind& kind : kKinds) {
        SCOPED_TRACE(kind.name);
        const fs::path src = make_clip(std::string("budget-") + kind.name, {320, 180, "25", 4.0, false, kind.filter});
        const fs::path out = fresh_dir(std::string("budget-") + kind.name) / "out";
        const ProcessResult r = run_ladder(budget_args(src, out));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const json report = json::parse(read_text(out / "report.json"));
        for (const json& rung : report.at("rungs")) {
            const std::string name = rung.at("name");
            const int target = rung.at("bitrate_kbps");
            const double kbps = file_kbps(rung.at("output").get<std::string>(), 100);
            const json& search = rung.at("crf_search");
            std::printf("[ metric   ] %s %s: %.1f kb/s of %d, CRF %d, %s after %d encodes\n", kind.name,
                        name.c_str(), kbps, target, rung.at("crf").get<int>(),
                        search.at("verdict").get<std::string>().c_str(), search.at("encodes").get<int>());
            EXPECT_LE(kbps, target * 1.05) << name << ": more than 5% over is never allowed";
            EXPECT_EQ(decode_errors(rung.at("output").get<std::string>()), "") << name;
            ASSERT_EQ(search.at("chunk_crf").size(), 4u) << name;
            const auto line_at = r.out.find("  " + name + "  ");
            ASSERT_NE(line_at, std::string::npos) << r.out;
            const std::string line = r.out.substr(line_at, r.out.find('\n', line_at) - line_at);
            // The line names the CRFs the chunks took (one, or the lowest and highest).
            const auto [low, high] = std::minmax_element(search.at("chunk_crf").begin(), search.at("chunk_crf").end());
            const std::string crfs = *low == *high ? fmt::format("  CRF {}  ", low->get<int>())
                                                   : fmt::format("  CRF {}-{}  ", low->get<int>(), high->get<int>());
            EXPECT_NE(line.find(crfs), std::string::npos) << line;
            if (kbps >= target * 0.95) {
                EXPECT_NE(search.at("verdict"), "at_quality_ceiling") << name;
                continue;
            }
            // Under the band: only at ladder's best quality for the rung.
            EXPECT_EQ(search.at("verdict"), "at_quality_ceiling") << name << ": " << kbps << " kb/s of " << target;
            EXPECT_EQ(rung.at("crf"), 10) << name;
            EXPECT_NE(line.find("at the quality ceiling: "), std::string::npos) << line;
            EXPECT_NE(line.find(fmt::format(" of {} kb/s", target)), std::string::npos) << line;
        }
        // The summary says how many passes over the source the search took.
        EXPECT_NE(r.out.find(fmt::format(", {} passes over the source)", report.at("source_passes").get<int>())),
                  std::string::npos)
            << r.out;
        if (std::string(kind.name) == "flat")
            EXPECT_EQ(report.at("rungs").at(0).at("crf_search").at("verdict"), "at_quality_ceiling")
                << "a flat colour spends nothing like 350 kb/s at 320x180";
        else
            for (const json& rung : report.at("rungs"))
                EXPECT_NE(rung.at("crf_search").at("verdict"), "at_quality_ceiling")
                    << rung.at("name") << ": this content spends its target";
    }
}

// Each rung of a budget run in HLS at `out`: BANDWIDTH at most twice
// AVERAGE-BANDWIDTH (master.m3u8) and the same from the segment files; each
// burst's chunk at a higher CRF than the rung's; the rung in its band
// (one 1-s segment of 25 frames per chunk).
void expect_peaks_capped_in_band(const fs::path& out, std::size_t segments, const std::vector<std::size_t>& bursts,
                                 const char* label) {
    const PlaylistLines master = read_playlist(out / "master.m3u8");
    const json report = json::parse(read_text(out / "report.json"));
    ASSERT_EQ(master.stream_inf_by_uri.size(), 2u);
    for (const json& rung : report.at("rungs")) {
        const std::string name = rung.at("name");
        SCOPED_TRACE(name);
        const std::string& attrs = master.stream_inf_by_uri.at(name + "/index.m3u8");
        EXPECT_LE(std::stod(attribute(attrs, "BANDWIDTH")), 2 * std::stod(attribute(attrs, "AVERAGE-BANDWIDTH")));
        const PlaylistLines media = read_playlist(out / name / "index.m3u8");
        ASSERT_EQ(media.uris.size(), segments);
        double bytes = 0, seconds = 0, highest = 0;
        for (std::size_t i = 0; i < media.uris.size(); ++i) {
            const auto size = static_cast<double>(fs::file_size(out / name / media.uris[i]));
            bytes += size;
            seconds += media.extinf[i];
            highest = std::max(highest, size / media.extinf[i]);
        }
        const json& crfs = rung.at("crf_search").at("chunk_crf");
        std::printf("[ metric   ] %s %s: segments peak %.2fx the average, %.0f kb/s of %d, chunk CRFs %s\n", label,
                    name.c_str(), highest / (bytes / seconds), bytes * 8 / 1000 / seconds,
                    rung.at("bitrate_kbps").get<int>(), crfs.dump().c_str());
        EXPECT_LE(highest, 2 * bytes / seconds);
        EXPECT_GE(rung.at("crf_search").at("peak_capped_chunks").get<int>(), static_cast<int>(bursts.size()))
            << "a burst was never a peak?";
        for (std::size_t burst : bursts) EXPECT_GT(crfs.at(burst).get<int>(), crfs.at(0).get<int>()) << burst;
        EXPECT_TRUE(rung.at("crf_search").at("verdict") == "on_target" ||
                    rung.at("crf_search").at("verdict") == "mixed")
            << rung.at("crf_search").dump();
        std::vector<fs::path> parts{out / name / "init.mp4"};
        for (const auto& uri : media.uris) parts.push_back(out / name / uri);
        const fs::path joined = out.parent_path() / (name + ".mp4");
        concat_files(parts, joined);
        const double kbps = file_kbps(joined, static_cast<int>(segments) * 25);
        EXPECT_GE(kbps, rung.at("bitrate_kbps").get<int>() * 0.95);
        EXPECT_LE(kbps, rung.at("bitrate_kbps").get<int>() * 1.05);
    }
}

// A flat picture with one second of heavy noise: at one CRF the noise's
// segment would carry most of the rung's bits (3-5x the average). Under
// budget each segment stays within 2x the average, as the master playlist
// declares it (BANDWIDTH, AVERAGE-BANDWIDTH) and as the segment files
// measure, and the rung still lands in its band.
TEST(RateBudget, NoSegmentPassesTwiceTheRungsAverage) {
    const fs::path src = make_clip(
        "budget-burst-src",
        {320, 180, "25", 5.0, false,
         "drawbox=x=0:y=0:w=iw:h=ih/2:color=0x406080:t=fill,noise=alls=40:allf=t:enable='between(t,2,2.99)'"});
    const fs::path out = fresh_dir("budget-burst") / "out";
    std::vector<std::string> args = budget_args(src, out);
    args.pop_back();
    args.pop_back();  // HLS, not --format mp4
    const ProcessResult r = run_ladder(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_peaks_capped_in_band(out, 5, {2}, "burst");
}

// Content that changes all the time (the class of a held-out clip whose
// rungs came out 7-30% over and peaks 2.9x): three bursts of noise in a
// flat 10-s clip, each a peak of its own, capped in the same passes that
// settle the rung's CRF.
TEST(RateBudget, ThreeBurstsAreEachCappedAndTheRungStaysInItsBand) {
    const fs::path src = make_clip(
        "budget-bursts-src",
        {320, 180, "25", 10.0, false,
         "drawbox=x=0:y=0:w=iw:h=ih/2:color=0x406080:t=fill,noise=alls=40:allf=t:enable='between(t,1,1.99)+"
         "between(t,4,4.99)+between(t,8,8.99)'"});
    const fs::path out = fresh_dir("budget-bursts") / "out";
    std::vector<std::string> args = budget_args(src, out);
    args.pop_back();
    args.pop_back();
    const ProcessResult r = run_ladder(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_peaks_capped_in_band(out, 10, {1, 4, 8}, "bursts");
}

// What the search decides comes from the encodes' sizes only: one slot and
// one decoder, or two slots and two decode lanes, give the same CRFs and
// the same files.
TEST(RateBudget, OneSlotAndTwoSlotsWithTwoDecodersGiveTheSameFiles) {
    const fs::path src = make_clip("budget-same-src", {320, 180, "25", 6.0, false, "noise=alls=20:allf=t"});
    const fs::path dir = fresh_dir("budget-same");
    const BudgetRun one = run_budget(src, dir / "one", {"--cpu-slots", "1", "--decoders", "1"});
    const BudgetRun two = run_budget(src, dir / "two", {"--cpu-slots", "2", "--decoders", "2"});
    ASSERT_FALSE(one.report.is_null() || two.report.is_null());
    json crfs[2];
    for (const json& rung : one.report.at("rungs")) crfs[0].push_back(rung.at("crf_search").at("chunk_crf"));
    for (const json& rung : two.report.at("rungs")) crfs[1].push_back(rung.at("crf_search").at("chunk_crf"));
    EXPECT_EQ(crfs[0], crfs[1]);
    expect_same_files(one, two);
}

// The first pass keeps the decoded frames where they fit in the memory
// budget and every later pass (the search's and the writing one, whose
// audio is read on its own) hands them on instead of decoding: the files
// are the same as where a small budget makes every pass decode.
TEST(RateBudget, FramesKeptByTheFirstPassGiveTheSameFilesAsDecodingEveryPass) {
    const fs::path src = make_clip("budget-kept-src", {320, 180, "25", 6.0, true, "noise=alls=20:allf=t"});
    const fs::path dir = fresh_dir("budget-kept");
    const BudgetRun kept = run_budget(src, dir / "kept", {});
    // Half of 8 MiB is less than the source's 150 frames of 86400 bytes.
    const BudgetRun decoded = run_budget(src, dir / "decoded", {"--memory-budget", "8M"});
    ASSERT_FALSE(kept.report.is_null() || decoded.report.is_null());
    const json reports[2] = {kept.report, decoded.report};
    const int passes = reports[0].at("source_passes").get<int>();
    EXPECT_GE(passes, 3) << "a search pass or more, then the writing pass";
    EXPECT_EQ(reports[0].at("replayed_passes").get<int>(), passes - 1) << "only the first pass decodes";
    EXPECT_GE(reports[0].at("kept_frame_bytes").get<std::uint64_t>(), 150u * 320 * 180 * 3 / 2);
    EXPECT_EQ(reports[0].at("source_frames_decoded").get<int>(), 150);
    EXPECT_EQ(reports[1].at("source_passes").get<int>(), passes);
    EXPECT_EQ(reports[1].at("replayed_passes").get<int>(), 0) << "nothing kept where it does not fit";
    EXPECT_EQ(reports[1].at("kept_frame_bytes").get<std::uint64_t>(), 0u);
    for (int i = 0; i < 2; ++i) EXPECT_GT(reports[i].at("audio_packets").get<int>(), 250) << "6 s of AAC";
    EXPECT_EQ(reports[0].at("audio_packets"), reports[1].at("audio_packets"));
    for (std::size_t r = 0; r < 2; ++r)
        EXPECT_EQ(reports[0].at("rungs").at(r).at("crf_search").at("chunk_crf"),
                  reports[1].at("rungs").at(r).at("crf_search").at("chunk_crf"));
    expect_same_files(kept, decoded);
}

// The later passes hand the kept frames on in as many lanes as the source
// may be decoded in (--decoders 3 here), each a run of whole chunks with
// scalers of its own; the audio, read on its own, ends where the last lane
// does. The files are those of one lane.
TEST(RateBudget, KeptFramesHandedOnInThreeLanesGiveTheSameFilesAsInOne) {
    const fs::path src = make_clip("budget-lanes-src", {320, 180, "25", 6.0, true, "noise=alls=20:allf=t"});
    const fs::path dir = fresh_dir("budget-lanes");
    const BudgetRun one = run_budget(src, dir / "one", {"--decoders", "1"});
    const BudgetRun three = run_budget(src, dir / "three", {"--decoders", "3"});
    ASSERT_FALSE(one.report.is_null() || three.report.is_null());
    const json& report = three.report;
    EXPECT_EQ(report.at("replayed_passes").get<int>(), report.at("source_passes").get<int>() - 1);
    // The report's lanes are the writing pass's: 150 frames in chunks of 50.
    const json& lanes = report.at("decode_lanes");
    ASSERT_EQ(lanes.size(), 3u) << lanes.dump();
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(lanes.at(i).at("first_frame").get<int>(), 50 * i) << lanes.dump();
        EXPECT_EQ(lanes.at(i).at("end_frame").get<int>(), 50 * (i + 1)) << lanes.dump();
    }
    EXPECT_EQ(report.at("source_frames_decoded").get<int>(), 150) << "the first pass's count, once";
    EXPECT_EQ(report.at("audio_packets"), one.report.at("audio_packets"));
    EXPECT_EQ(one.report.at("decode_lanes").size(), 1u);
    // Only the first pass decodes: the others do not say they decode in lanes.
    std::size_t said = 0;
    for (std::size_t at = 0; (at = three.err.find("lanes at once", at)) != std::string::npos; ++at) ++said;
    EXPECT_LE(said, 1u) << three.err;
    expect_same_files(one, three);
}

// A run killed part-way (its search's encodes journaled under their CRFs)
// and resumed ends with the same files as a run never stopped.
TEST(RateBudget, ARunKilledPartWayAndResumedGivesTheSameFiles) {
    const fs::path src = make_clip("budget-resume-src", {320, 180, "25", 8.0, false, "noise=alls=20:allf=t"});
    const fs::path dir = fresh_dir("budget-resume");
    const fs::path whole = dir / "whole";
    ProcessResult r = run_ladder(budget_args(src, whole));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // A run's own passes resume nothing: its chunks name the slot that made them.
    EXPECT_EQ(chunks_from_earlier_runs(whole), 0);
    EXPECT_EQ(json::parse(read_text(whole / "report.json")).at("resumed_chunks"), 0);

    const fs::path out = dir / "killed";
    std::vector<std::string> args = budget_args(src, out);
    args.push_back("--cpu-slots");
    args.push_back("1");
    const int pid = spawn_ladder(args);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    // Past the first pass (8 chunks of each of 2 rungs), before the end.
    while (journaled_chunks(out) < 20 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(pid, SIGKILL);
    ASSERT_EQ(wait_exit(pid), 128 + SIGKILL);
    ASSERT_GE(journaled_chunks(out), 20);
    ASSERT_FALSE(fs::exists(out / "180p.mp4")) << "killed too late to prove anything";

    args.push_back("--resume");
    r = run_ladder(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(read_text(out / "180p.mp4") == read_text(whole / "180p.mp4")) << "180p.mp4 differs";
    EXPECT_TRUE(read_text(out / "90p.mp4") == read_text(whole / "90p.mp4")) << "90p.mp4 differs";
    EXPECT_FALSE(fs::exists(out / ".ladder")) << "the journal goes once the run is complete";
    // The chunks the killed run made that the outputs hold are the ones
    // counted and said as resumed.
    const int earlier = chunks_from_earlier_runs(out);
    EXPECT_EQ(json::parse(read_text(out / "report.json")).at("resumed_chunks"), earlier);
    EXPECT_EQ(r.err.find(fmt::format("resumed {} chunk(s) from the journal", earlier)) != std::string::npos, earlier > 0)
        << r.err;
}

// ladder encode's default (--rate-control auto) is budget where every
// session is SVT-AV1 on frames decoded on the CPU: the same files as asking
// for it, and the run says so.
TEST(RateBudget, TheDefaultIsBudgetWhereEverySessionIsSvtAv1) {
    const fs::path src = make_clip("budget-default-src", {320, 180, "25", 3.0, false, "noise=alls=20:allf=t"});
    const fs::path dir = fresh_dir("budget-default");
    const BudgetRun asked = run_budget(src, dir / "asked", {});
    std::vector<std::string> args = budget_args(src, dir / "default");
    const auto mode = std::find(args.begin(), args.end(), "--rate-control");
    ASSERT_NE(mode, args.end());
    args.erase(mode, mode + 2);
    const ProcessResult r = run_ladder(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("; rate control budget ("), std::string::npos) << r.err;
    const json report = json::parse(read_text(dir / "default" / "report.json"));
    EXPECT_EQ(report.at("rate_control"), "budget");
    EXPECT_EQ(asked.report.at("rate_control"), "budget");
    for (const json& rung : report.at("rungs")) EXPECT_TRUE(rung.contains("crf_search")) << rung.dump();
    EXPECT_TRUE(read_text(dir / "default" / "180p.mp4") == asked.files[0]) << "180p.mp4 differs";
    EXPECT_TRUE(read_text(dir / "default" / "90p.mp4") == asked.files[1]) << "90p.mp4 differs";
}

// Where a session keeps its own rate control (libaom here), the default is
// vbr, and the run says why: the rung may land outside its band.
TEST(RateBudget, TheDefaultIsVbrWithAnEncoderWithoutAConstantQualityAndSaysWhy) {
    const fs::path src = make_clip("budget-aom-src", {320, 180, "25", 1.0, false, ""});
    const fs::path out = fresh_dir("budget-default-aom") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--encoder", "aom", "--rung",
                                        "90p=160x90@120", "--preset", "8", "--format", "mp4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("rate control: one-pass VBR, not budget, because libaom-av1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("; rate control vbr"), std::string::npos) << r.err;
    const json report = json::parse(read_text(out / "report.json"));
    EXPECT_EQ(report.at("rate_control"), "vbr");
    EXPECT_FALSE(report.at("rungs").at(0).contains("crf_search"));
}

// A budget request with `option value` is refused (exit 2) naming why,
// before anything is written.
void expect_refused(const std::string& name, const std::string& option, const std::string& value,
                    const std::string& why) {
    const fs::path src = make_clip("budget-aom-src", {320, 180, "25", 1.0, false, ""});
    const fs::path out = fresh_dir(name) / "out";
    std::vector<std::string> args = budget_args(src, out);
    args.push_back(option);
    args.push_back(value);
    const ProcessResult r = run_ladder(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out / "180p.mp4"));
    EXPECT_FALSE(fs::exists(out / ".ladder"));
}

TEST(RateBudget, AnEncoderWithoutAConstantQualityIsRefusedBeforeAnythingIsWritten) {
    expect_refused("budget-aom", "--encoder", "aom", "--rate-control budget encodes at a constant quality");
}

// The CRFs are decided on the frames, which NVDEC's scaler would make
// differently from the CPU's: budget decodes on the CPU, and refuses
// --decode nvdec (before looking for a GPU, so the same on any machine).
TEST(RateBudget, DecodingOnTheGpuIsRefusedBeforeAnythingIsWritten) {
    expect_refused("budget-nvdec", "--decode", "nvdec", "it decodes and scales on the CPU");
}

// --bit-allocation shares a rung's rate among vbr's sessions: budget
// refuses it rather than ignore it, and the default takes it as asking for
// vbr, saying so.
TEST(RateBudget, AnAskedBitAllocationIsRefusedByBudgetAndMakesTheDefaultVbr) {
    expect_refused("budget-bit-allocation", "--bit-allocation", "even", "--bit-allocation does not apply");
    const fs::path src = make_clip("budget-aom-src", {320, 180, "25", 1.0, false, ""});
    const fs::path out = fresh_dir("budget-default-bit-allocation") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--bit-allocation", "even",
                                        "--rung", "90p=160x90@120", "--preset", "12", "--format", "mp4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("rate control: one-pass VBR, not budget, because --bit-allocation was given"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(json::parse(read_text(out / "report.json")).at("rate_control"), "vbr");
}

}  // namespace
}  // namespace ladder::test
