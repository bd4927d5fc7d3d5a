// A job split across machines: `ladder plan`, shards encoded by separate
// processes at once on one shared folder (one shard twice, racing on the
// same chunks), then `ladder stitch`. The result validates and is
// frame-exact against a single-process run with the same settings: same
// frames at the same positions (per-frame PSNR against the source), key
// frames at the same chunk starts, same durations.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <nlohmann/json.hpp>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

// 8 s at 29.97 fps with a key frame every 37 frames and B-frames: chunk
// starts (every 30 frames) fall between the source's key frames, so shards
// must seek before their first frame and skip to it.
fs::path shard_source() {
    return make_clip("shard-src", {320, 240, "30000/1001", 8.0, true, ""});
}

std::vector<std::string> shard_settings() {
    return {"--rung", "240p=320x240@900", "--rung", "120p=160x120@250", "--segment-seconds", "1", "--preset", "12"};
}

std::vector<std::string> shard_args(std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

std::vector<ProcessResult> shard_run_at_once(const std::vector<std::vector<std::string>>& commands) {
    std::vector<std::future<ProcessResult>> running;
    for (const auto& c : commands)
        running.push_back(std::async(std::launch::async, [c] { return run_ladder(c, {}, 120); }));
    std::vector<ProcessResult> out;
    for (auto& r : running) out.push_back(r.get());
    return out;
}

double shard_min(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }

TEST(Shards, ThreeShardProcessesAtOnceThenStitchAreFrameExactAgainstOneProcess) {
    const fs::path src = shard_source();
    const fs::path root = fresh_dir("shards");
    const fs::path work = root / "work";

    ProcessResult plan = run_ladder(shard_args({"plan", src.string(), "-o", work.string(), "--progress", "plain"},
                                         shard_settings()),
                                    {}, 120);
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    // A plan's default is vbr, not encode's budget: the result line says so.
    EXPECT_NE(plan.out.find("rate control vbr"), std::string::npos) << plan.out;
    const auto plan_json = nlohmann::json::parse(read_text(work / "plan.json"));
    const int chunks = static_cast<int>(plan_json["chunks"].size());
    const long frames = plan_json["source"]["frames"].get<long>();
    ASSERT_EQ(chunks, 8);
    ASSERT_EQ(frames, 240);
    EXPECT_EQ(plan_json["chunk_frames"], 30);
    EXPECT_TRUE(fs::path(plan_json["source"]["path"].get<std::string>()).is_absolute());

    // Shards 0, 1, 2 of 3, and shard 1 a second time, all at once.
    const std::string plan_file = (work / "plan.json").string();
    std::vector<std::vector<std::string>> shards;
    for (const char* s : {"0/3", "1/3", "2/3", "1/3"})
        shards.push_back({"encode", "--plan", plan_file, "--shard", s, "--progress", "plain"});
    const auto results = shard_run_at_once(shards);
    int encoded = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
        ASSERT_EQ(results[i].exit_code, 0) << shards[i][4] << ": " << results[i].err;
        EXPECT_NE(results[i].out.find("ladder: shard " + shards[i][4]), std::string::npos) << results[i].out;
        const auto report =
            nlohmann::json::parse(read_text(work / "reports" / ("shard-" + std::string(1, shards[i][4][0]) + "-of-3.json")));
        EXPECT_TRUE(report["ok"].get<bool>());
        std::printf("[ metric   ] shard %s: %s", shards[i][4].c_str(), results[i].out.c_str());
    }
    // Each shard decoded only its own frames (chunks 0-1, 2-4, 5-7 of 30
    // frames), not the whole source.
    for (const char* s : {"0", "1", "2"}) {
        const auto report = nlohmann::json::parse(read_text(work / "reports" / (std::string("shard-") + s + "-of-3.json")));
        EXPECT_EQ(report["frames_normalized"].get<long>(), s[0] == '0' ? 60 : 90) << s;
        encoded += report["shard"]["chunks_encoded"].get<int>() + report["shard"]["chunks_kept"].get<int>();
    }
    EXPECT_GE(encoded, 2 * chunks);

    const fs::path out = root / "stitched";
    ProcessResult stitch = run_ladder({"stitch", work.string(), "-o", out.string(), "--format", "both", "--progress",
                                       "plain"},
                                      {}, 120);
    ASSERT_EQ(stitch.exit_code, 0) << stitch.err;
    ProcessResult valid = run_ladder({"validate", out.string()});
    EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
    EXPECT_TRUE(fs::exists(work / ".ladder")) << "stitch leaves the shards' chunks where they are";

    // One process with the plan's rate control (plan's default, vbr).
    const fs::path single = root / "single";
    ProcessResult one = run_ladder(shard_args({"encode", src.string(), "-o", single.string(), "--format", "both",
                                         "--progress", "plain", "--rate-control", "vbr"},
                                        shard_settings()),
                                   {}, 120);
    ASSERT_EQ(one.exit_code, 0) << one.err;

    const FileFacts audio = probe(out / "audio" / "aac" / "index.m3u8");
    ASSERT_EQ(audio.audio.size(), 1u);
    EXPECT_NEAR(audio.audio[0].duration, probe(single / "audio" / "aac" / "index.m3u8").audio[0].duration, 0.03);
    for (const auto& [rung, w, h] : {std::tuple{"240p", 320, 240}, std::tuple{"120p", 160, 120}}) {
        SCOPED_TRACE(rung);
        for (const fs::path& file : {out / (std::string(rung) + ".mp4"), out / rung / "index.m3u8"}) {
            SCOPED_TRACE(file.string());
            const fs::path same = single / fs::relative(file, out);
            const FileFacts a = probe(file), b = probe(same);
            ASSERT_EQ(a.video.size(), 1u);
            EXPECT_EQ(a.video[0].frames, 240);
            EXPECT_EQ(a.video[0].frames, b.video[0].frames);
            EXPECT_NEAR(a.video[0].duration, b.video[0].duration, 1e-6);
            ASSERT_EQ(a.audio.size(), b.audio.size());  // in the MP4; HLS has an audio rendition
            if (!a.audio.empty()) {
                EXPECT_NEAR(a.audio[0].duration, b.audio[0].duration, 0.03);
            }
            EXPECT_EQ(key_frame_indexes(file), (std::vector<long>{0, 30, 60, 90, 120, 150, 180, 210}));
            EXPECT_EQ(key_frame_indexes(file), key_frame_indexes(same));
            EXPECT_EQ(decode_errors(file), "");
        }
        ASSERT_EQ(probe(out / (std::string(rung) + ".mp4")).audio.size(), 1u);
        // The same frames at the same positions: next to each other, frames
        // of this moving picture differ by about 22 dB of PSNR, so a frame
        // one position off would fall far below 30 dB; encoded in place they
        // are near 40. (Bit-exact they are not: SVT-AV1's rate control is not
        // deterministic with threads, nor is its per-chunk rate feedback.)
        const auto sharded = psnr_per_frame(out / (std::string(rung) + ".mp4"), src, w, h);
        const auto whole = psnr_per_frame(single / (std::string(rung) + ".mp4"), src, w, h);
        ASSERT_EQ(sharded.size(), 240u);
        ASSERT_EQ(whole.size(), 240u);
        const auto mean = [](const std::vector<double>& v) {
            double sum = 0;
            for (double x : v) sum += x;
            return sum / static_cast<double>(v.size());
        };
        std::printf("[ metric   ] %s per-frame PSNR: sharded min %.2f mean %.2f dB, one process min %.2f mean %.2f dB\n",
                    rung, shard_min(sharded), mean(sharded), shard_min(whole), mean(whole));
        for (std::size_t i = 0; i < sharded.size(); ++i) EXPECT_GT(sharded[i], 30.0) << "frame " << i;
        EXPECT_GT(shard_min(whole), 30.0);
        EXPECT_NEAR(mean(sharded), mean(whole), 1.5);
    }
}

TEST(Shards, ARerunShardKeepsItsChunksAndStitchNamesWhatIsMissing) {
    const fs::path src = shard_source();
    const fs::path root = fresh_dir("shards-rerun");
    const fs::path work = root / "work";
    ASSERT_EQ(run_ladder(shard_args({"plan", src.string(), "-o", work.string(), "-q"}, shard_settings()), {}, 120).exit_code, 0);
    const std::string plan_file = (work / "plan.json").string();
    ProcessResult first = run_ladder({"encode", "--plan", plan_file, "--shard", "1/2", "-q"}, {}, 120);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const fs::path kept = work / ".ladder" / "240p" / "chunk_00005.bin";
    ASSERT_TRUE(fs::exists(kept));
    const auto written = fs::last_write_time(kept);

    // Idempotent: the same shard again encodes nothing and leaves its chunks.
    ProcessResult again = run_ladder({"encode", "--plan", plan_file, "--shard", "1/2", "--progress", "plain"}, {}, 120);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("0 encoded, 8 already there"), std::string::npos) << again.out;
    EXPECT_EQ(fs::last_write_time(kept), written);

    // Shard 0 never ran, and one chunk of shard 1 is lost: stitch names them
    // all, exits 1, and writes nothing that looks complete.
    fs::remove(work / ".ladder" / "120p" / "chunk_00006.bin");
    const fs::path out = root / "out";
    ProcessResult stitch = run_ladder({"stitch", work.string(), "-o", out.string(), "--progress", "plain"}, {}, 120);
    EXPECT_EQ(stitch.exit_code, 1) << stitch.err;
    EXPECT_NE(stitch.err.find("rung 240p: chunks 0-3 missing"), std::string::npos) << stitch.err;
    EXPECT_NE(stitch.err.find("rung 120p: chunks 0-3, 6 missing"), std::string::npos) << stitch.err;
    EXPECT_NE(stitch.err.find("--shard I/N"), std::string::npos) << "says what to do: " << stitch.err;
    EXPECT_FALSE(fs::exists(out / "master.m3u8"));

    // A chunk of another plan in its place is refused, not stitched.
    const fs::path other = root / "other";
    auto other_settings = shard_settings();
    other_settings[1] = "240p=320x240@700";
    ASSERT_EQ(run_ladder(shard_args({"plan", src.string(), "-o", other.string(), "-q"}, other_settings), {}, 120).exit_code, 0);
    ASSERT_EQ(run_ladder({"encode", "--plan", (other / "plan.json").string(), "--shard", "0/4", "-q"}, {}, 120).exit_code,
              0);
    ASSERT_EQ(run_ladder({"encode", "--plan", plan_file, "--shard", "0/2", "-q"}, {}, 120).exit_code, 0);
    fs::copy_file(other / ".ladder" / "120p" / "chunk_00000.bin", work / ".ladder" / "120p" / "chunk_00006.bin");
    stitch = run_ladder({"stitch", work.string(), "-o", out.string(), "--progress", "plain"}, {}, 120);
    EXPECT_EQ(stitch.exit_code, 1) << stitch.err;
    EXPECT_NE(stitch.err.find("rung 120p: chunk 6 damaged or of another plan"), std::string::npos) << stitch.err;

    // A shard of the other plan cannot write into this plan's folder.
    fs::copy_file(other / "plan.json", work / "other-plan.json");
    ProcessResult mixed = run_ladder({"encode", "--plan", (work / "other-plan.json").string(), "--shard", "0/2", "-q"},
                                     {}, 120);
    EXPECT_EQ(mixed.exit_code, 2) << mixed.err;
    EXPECT_NE(mixed.err.find("belong to another plan"), std::string::npos) << mixed.err;

    // Once the chunk is encoded again, stitch completes.
    fs::remove(work / ".ladder" / "120p" / "chunk_00006.bin");
    ASSERT_EQ(run_ladder({"encode", "--plan", plan_file, "--shard", "1/2", "-q"}, {}, 120).exit_code, 0);
    stitch = run_ladder({"stitch", work.string(), "-o", out.string(), "--progress", "plain"}, {}, 120);
    ASSERT_EQ(stitch.exit_code, 0) << stitch.err;
    EXPECT_EQ(run_ladder({"validate", out.string()}).exit_code, 0);
}

TEST(Shards, BadShardArgumentsAreUsageErrors) {
    const fs::path src = shard_source();
    const fs::path work = fresh_dir("shards-args") / "work";
    ASSERT_EQ(run_ladder(shard_args({"plan", src.string(), "-o", work.string(), "-q"}, shard_settings()), {}, 120).exit_code, 0);
    const std::string plan_file = (work / "plan.json").string();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"encode", "--plan", plan_file, "--shard", "3/3"},
          {"encode", "--plan", plan_file, "--shard", "x/3"},
          {"encode", "--plan", plan_file},
          {"encode", "--plan", plan_file, "--shard", "0/2", "--rung", "a=64x64@100"},
          {"encode", src.string(), "-o", (work / "x").string(), "--shard", "0/2"},
          {"plan", src.string(), "-o", work.string()}}) {
        ProcessResult r = run_ladder(args);
        EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n') >= 1, true);
        EXPECT_NE(r.err.find("ladder: error:"), std::string::npos) << r.err;
    }
}

}  // namespace
}  // namespace ladder::test
