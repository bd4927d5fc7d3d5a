// Nothing outside the output folder, the source never overwritten, one run
// per folder: links planted inside OUTDIR are refused (exit 2, naming them)
// and nothing outside is written or deleted; an input where the run writes
// is refused before anything is written; a second run into a folder in use
// is refused naming the first one's pid, and a killed run leaves no lock;
// rung names that would collide with each other or with ladder's own files
// (in any letter case) are refused before any work.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

const ClipSpec kSafetyClip{320, 180, "25", 2.0, true, ""};

// Every file below `dir` with its bytes, links as "-> target".
std::map<std::string, std::string> folder_snapshot(const fs::path& dir) {
    std::map<std::string, std::string> out;
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
        const auto rel = it->path().lexically_relative(dir).string();
        if (it->is_symlink())
            out[rel] = "-> " + fs::read_symlink(it->path()).string();
        else if (it->is_regular_file())
            out[rel] = read_text(it->path());
        else
            out[rel] = "<folder>";
    }
    return out;
}

void expect_refused_naming(const ProcessResult& r, const std::string& words) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << "one error line: " << r.err;
    EXPECT_EQ(r.err.rfind("ladder: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << "names " << words << ": " << r.err;
}

struct Planted {
    std::string label;
    std::string link;    // inside OUTDIR
    bool to_folder;      // the link points at the victim folder (else at a file in it)
    std::vector<std::string> args;
};

void PrintTo(const Planted& p, std::ostream* os) { *os << p.label; }

const std::vector<std::string> kSafetyHls{"--preset", "12", "--rung", "180p=320x180@300"};

const std::vector<Planted> kPlanted{
    {"rung_folder", "180p", true, kSafetyHls},
    {"rung_folder_overwrite", "180p", true, {"--preset", "12", "--rung", "180p=320x180@300", "--overwrite"}},
    {"audio_folder", "audio", true, kSafetyHls},
    {"audio_rendition", "audio/aac", true, kSafetyHls},
    {"journal", ".ladder", true, kSafetyHls},
    {"rung_playlist", "180p/index.m3u8", false, {"--preset", "12", "--rung", "180p=320x180@300", "--overwrite"}},
    {"master", "master.m3u8", false, {"--preset", "12", "--rung", "180p=320x180@300", "--overwrite"}},
    {"dash", "manifest.mpd", false, {"--preset", "12", "--rung", "180p=320x180@300", "--format", "hls,dash", "--overwrite"}},
    {"mp4", "180p.mp4", false, {"--preset", "12", "--rung", "180p=320x180@300", "--format", "mp4", "--overwrite"}},
    {"report", "report.json", false, kSafetyHls},
    {"lock", ".ladder.lock", false, kSafetyHls},
};

class PlantedLink : public testing::TestWithParam<Planted> {};

TEST_P(PlantedLink, IsRefusedNamingItAndNothingOutsideChanges) {
    const Planted& p = GetParam();
    const fs::path dir = fresh_dir("planted-" + p.label);
    const fs::path src = make_clip("planted-src", kSafetyClip);
    const fs::path victim = dir / "victim";
    const fs::path out = dir / "out";
    fs::create_directories(victim);
    std::ofstream(victim / "seg_00002.m4s") << "x";
    std::ofstream(victim / "index.m3u8") << "victim's";
    fs::create_directories(out);
    std::ofstream(out / "master.m3u8") << "old";
    fs::create_directories((out / p.link).parent_path());
    fs::remove(out / p.link);
    if (p.to_folder)
        fs::create_directory_symlink(victim, out / p.link);
    else
        fs::create_symlink(victim / "index.m3u8", out / p.link);
    const auto before = folder_snapshot(victim);

    std::vector<std::string> args{"encode", src.string(), "-o", out.string()};
    args.insert(args.end(), p.args.begin(), p.args.end());
    const auto r = run_ladder(args);
    expect_refused_naming(r, (out / p.link).string());
    EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
    EXPECT_EQ(folder_snapshot(victim), before) << "the folder outside OUTDIR changed";
    EXPECT_TRUE(fs::is_symlink(out / p.link)) << "the link itself is the user's to remove";
}

const auto kPlantedLabel = [](const testing::TestParamInfo<Planted>& i) { return i.param.label; };
INSTANTIATE_TEST_SUITE_P(Places, PlantedLink, testing::ValuesIn(kPlanted), kPlantedLabel);

// OUTDIR itself given as a link is the user's choice: followed.
TEST(OutputFolderSafety, OutdirGivenAsALinkIsFollowed) {
    const fs::path dir = fresh_dir("outdir-link");
    const fs::path src = make_clip("planted-src", kSafetyClip);
    fs::create_directories(dir / "real");
    fs::create_directory_symlink(dir / "real", dir / "out");
    const auto r = run_ladder({"encode", src.string(), "-o", (dir / "out").string(), "--preset", "12", "--rung",
                               "180p=320x180@300"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "real" / "master.m3u8"));
    EXPECT_FALSE(fs::exists(dir / "real" / ".ladder.lock")) << "a finished run removes its lock file";
}

// ---- the source is never overwritten ----

struct InputCase {
    std::string label;
    std::string input;  // relative to the test folder
    std::vector<std::string> args;  // OUT is replaced by the output folder, SRC by the input
};

void PrintTo(const InputCase& c, std::ostream* os) { *os << c.label; }

const std::vector<InputCase> kInputs{
    {"report_name", "o/report.json", {"-o", "OUT"}},
    {"rung_mp4_overwrite", "o/180p.mp4", {"-o", "OUT", "--format", "mp4", "--overwrite"}},
    {"rung_mp4_resume", "o/180p.mp4", {"-o", "OUT", "--format", "both", "--resume"}},
    {"inside_rung_folder", "o/180p/clip.mp4", {"-o", "OUT", "--overwrite"}},
    {"rung_name_other_case", "o/180P.mp4", {"-o", "OUT", "--format", "mp4", "--overwrite"}},
    {"journal", "o/.ladder/clip.mp4", {"-o", "OUT", "--overwrite"}},
    {"report_flag", "src.mp4", {"-o", "OUT", "--report", "SRC"}},
    {"report_flag_other_name", "src.mp4", {"-o", "OUT", "--report", "./SRC"}},
    {"audio_file", "src.mp4", {"-o", "OUT", "--audio-file", "o/audio/aac/track.mp4", "--overwrite"}},
};

class InputInTheWay : public testing::TestWithParam<InputCase> {};

TEST_P(InputInTheWay, IsRefusedBeforeAnythingIsWritten) {
    const InputCase& c = GetParam();
    const fs::path dir = fresh_dir("input-in-way-" + c.label);
    const fs::path clip = make_clip("planted-src", kSafetyClip);
    const fs::path input = dir / c.input;
    fs::create_directories(input.parent_path());
    fs::copy_file(clip, input);
    fs::create_directories(dir / "o" / "audio" / "aac");
    fs::copy_file(clip, dir / "o" / "audio" / "aac" / "track.mp4");
    const auto before = folder_snapshot(dir);

    std::vector<std::string> args{"encode", input.string(), "--preset", "12", "--rung", "180p=320x180@300"};
    for (std::string a : c.args) {
        if (a == "OUT") a = (dir / "o").string();
        if (a == "SRC") a = input.string();
        if (a == "./SRC") a = (dir / "." / c.input).string();
        if (a.starts_with("o/")) a = (dir / a).string();
        args.push_back(a);
    }
    const auto r = run_ladder(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("ladder: error: "), std::string::npos) << r.err;
    EXPECT_EQ(folder_snapshot(dir), before) << "something was written or replaced: " << r.err;
}

const auto kInputLabel = [](const testing::TestParamInfo<InputCase>& i) { return i.param.label; };
INSTANTIATE_TEST_SUITE_P(Cases, InputInTheWay, testing::ValuesIn(kInputs), kInputLabel);

// A hard link of the source at an output's name is the source under
// another name: replacing it is refused too.
TEST(OutputFolderSafety, AnInputHardLinkedAtAnOutputNameIsRefused) {
    const fs::path dir = fresh_dir("input-hard-link");
    const fs::path clip = make_clip("planted-src", kSafetyClip);
    fs::copy_file(clip, dir / "src.mp4");
    fs::create_directories(dir / "o");
    fs::create_hard_link(dir / "src.mp4", dir / "o" / "180p.mp4");
    const auto r = run_ladder({"encode", (dir / "src.mp4").string(), "-o", (dir / "o").string(), "--format", "mp4",
                               "--overwrite", "--preset", "12", "--rung", "180p=320x180@300"});
    expect_refused_naming(r, "180p.mp4");
    EXPECT_EQ(read_text(dir / "src.mp4"), read_text(clip));
}

// ---- one run per folder ----

// Starts an encode and returns once it has journaled a chunk: it holds the
// folder by then.
int start_and_wait_for_a_chunk(const std::vector<std::string>& args, const fs::path& journal_dir) {
    const int pid = spawn_ladder(args);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (journaled_chunks(journal_dir) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return pid;
}

TEST(OneRunPerFolder, ASecondRunIsRefusedNamingTheFirstAndAKilledRunLeavesNoLock) {
    const fs::path a = make_clip("one-run-a", {640, 360, "25", 12.0, true, ""});
    const fs::path b = make_clip("one-run-b", {640, 360, "25", 6.0, true, "hue=H=2*PI*t"});
    const fs::path out = fresh_dir("one-run") / "o";
    const std::vector<std::string> rung{"--preset", "12", "--rung", "360p=640x360@600", "--cpu-slots", "1"};
    std::vector<std::string> first{"encode", a.string(), "-o", out.string()};
    first.insert(first.end(), rung.begin(), rung.end());
    const int pid = start_and_wait_for_a_chunk(first, out);
    ASSERT_GT(journaled_chunks(out), 0) << "the first run never journaled a chunk";
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{}, std::vector<std::string>{"--resume"}, std::vector<std::string>{"--overwrite"}}) {
        std::vector<std::string> second{"encode", b.string(), "-o", out.string()};
        second.insert(second.end(), rung.begin(), rung.end());
        second.insert(second.end(), extra.begin(), extra.end());
        const auto r = run_ladder(second);
        expect_refused_naming(r, fmt::format("pid {}", pid));
        EXPECT_NE(r.err.find("in use"), std::string::npos) << r.err;
    }
    kill(pid, SIGKILL);
    EXPECT_EQ(wait_exit(pid), 128 + SIGKILL);
    // The kernel dropped the lock with the process: the next run goes on.
    std::vector<std::string> resumed = first;
    resumed.push_back("--resume");
    const auto r = run_ladder(resumed);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    EXPECT_FALSE(fs::exists(out / ".ladder.lock"));
}

// Shards share their plan's folder (two attempts at one shard too:
// Shards.ThreeShardProcessesAtOnce...), but a stitch or an encode there
// waits for none of them: it is refused, naming the shard's pid.
TEST(OneRunPerFolder, ShardsOfAPlanShareTheFolderButAStitchOrAnEncodeThereIsRefused) {
    const fs::path src = make_clip("one-run-a", {640, 360, "25", 12.0, true, ""});
    const fs::path work = fresh_dir("one-run-shards") / "w";
    const std::vector<std::string> rung{"--preset", "12", "--rung", "360p=640x360@600"};
    std::vector<std::string> plan{"plan", src.string(), "-o", work.string()};
    plan.insert(plan.end(), rung.begin(), rung.end());
    ASSERT_EQ(run_ladder(plan).exit_code, 0);
    const std::string plan_file = (work / "plan.json").string();
    const int pid = start_and_wait_for_a_chunk(
        {"encode", "--plan", plan_file, "--shard", "0/2", "--cpu-slots", "1"}, work);
    ASSERT_GT(journaled_chunks(work), 0);
    const auto stitch = run_ladder({"stitch", work.string(), "-o", (work.parent_path() / "out").string()});
    expect_refused_naming(stitch, fmt::format("pid {}", pid));
    std::vector<std::string> encode{"encode", src.string(), "-o", work.string(), "--overwrite"};
    encode.insert(encode.end(), rung.begin(), rung.end());
    expect_refused_naming(run_ladder(encode), fmt::format("pid {}", pid));
    std::vector<std::string> replan{"plan", src.string(), "-o", work.string(), "--overwrite"};
    replan.insert(replan.end(), rung.begin(), rung.end());
    expect_refused_naming(run_ladder(replan), fmt::format("pid {}", pid));
    const auto other_shard = run_ladder({"encode", "--plan", plan_file, "--shard", "1/2"});
    EXPECT_EQ(other_shard.exit_code, 0) << other_shard.err;
    EXPECT_EQ(wait_exit(pid), 0);
    const auto done = run_ladder({"stitch", work.string(), "-o", (work.parent_path() / "out").string()});
    ASSERT_EQ(done.exit_code, 0) << done.err;
    EXPECT_EQ(run_ladder({"validate", (work.parent_path() / "out").string()}).exit_code, 0);
}

// ---- rung names that clash ----

struct Clash {
    std::string label;
    std::vector<std::string> args;
};

void PrintTo(const Clash& c, std::ostream* os) { *os << c.label; }

const std::vector<Clash> kClashes{
    {"master", {"--rung", "master.m3u8=320x180@300"}},
    {"manifest", {"--rung", "manifest.mpd=320x180@300", "--format", "hls,dash"}},
    {"report", {"--rung", "report.json=320x180@300"}},
    {"audio", {"--rung", "Audio=320x180@300"}},
    {"mp4_beside_folder", {"--rung", "a=320x180@300", "--rung", "a.mp4=160x90@100", "--format", "both"}},
    {"case", {"--rung", "A=320x180@300", "--rung", "a=160x90@100"}},
    {"case_mp4", {"--rung", "HD=320x180@300", "--rung", "hd=160x90@100", "--format", "mp4"}},
};

class ClashingRungNames : public testing::TestWithParam<Clash> {};

TEST_P(ClashingRungNames, AreRefusedBeforeAnyWork) {
    const Clash& c = GetParam();
    const fs::path out = fresh_dir("clash-" + c.label) / "o";
    const fs::path src = make_clip("planted-src", kSafetyClip);
    std::vector<std::string> args{"encode", src.string(), "-o", out.string(), "--preset", "12"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = run_ladder(args);
    expect_refused_naming(r, "rename the rung");
    EXPECT_FALSE(fs::exists(out)) << "OUTDIR was created for a refused ladder";
}

const auto kClashLabel = [](const testing::TestParamInfo<Clash>& i) { return i.param.label; };
INSTANTIATE_TEST_SUITE_P(Names, ClashingRungNames, testing::ValuesIn(kClashes), kClashLabel);

}  // namespace
}  // namespace ladder::test
