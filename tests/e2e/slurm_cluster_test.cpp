// deploy/slurm as written, on a real one-node Slurm cluster (Debian's munge,
// slurmctld and slurmd, started by tests/slurm/one_node_cluster.sh in a
// temporary folder and stopped by their pids whatever the test's outcome):
// submit.sh submits plan, the array of shards and stitch chained with
// afterok; while the shards run, array task 0 is requeued with `scontrol
// requeue` (Slurm sends it SIGTERM, as on preemption) once it has journaled
// a chunk. The requeued task keeps the chunks it had (same files, untouched)
// and encodes only the rest, stitch runs after every task, and the ladder
// validates and is frame-exact against one process.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

const fs::path kClusterScript = fs::path(LADDER_SOURCE_DIR) / "tests/slurm/one_node_cluster.sh";
const fs::path kSlurmScripts = fs::path(LADDER_SOURCE_DIR) / "deploy/slurm";

// The cluster's daemons live as long as this object: the destructor stops
// them (and cancels every job) even when an assertion ended the test.
class OneNodeCluster {
public:
    explicit OneNodeCluster(fs::path dir) : dir_(std::move(dir)) {
        start_ = run_process({"bash", kClusterScript.string(), "start", dir_.string()}, {}, 120);
    }
    ~OneNodeCluster() { run_process({"bash", kClusterScript.string(), "stop", dir_.string()}, {}, 120); }
    OneNodeCluster(const OneNodeCluster&) = delete;
    OneNodeCluster& operator=(const OneNodeCluster&) = delete;

    const ProcessResult& start() const { return start_; }
    std::string conf_env() const { return "SLURM_CONF=" + (dir_ / "slurm.conf").string(); }
    const fs::path& dir() const { return dir_; }

private:
    fs::path dir_;
    ProcessResult start_;
};

// `scontrol show job -o ID`, as KEY=VALUE pairs (the first record: an
// array task's own).
std::map<std::string, std::string> slurm_job(const OneNodeCluster& c, const std::string& id) {
    const ProcessResult r = run_process({"scontrol", "show", "job", "-o", id}, {c.conf_env()}, 30);
    std::map<std::string, std::string> fields;
    const std::string first = r.out.substr(0, r.out.find('\n'));
    static const std::regex kv(R"((\w+)=(\S*))");
    for (std::sregex_iterator it(first.begin(), first.end(), kv), end; it != end; ++it) fields[(*it)[1]] = (*it)[2];
    return fields;
}

std::string slurm_state(const OneNodeCluster& c, const std::string& id) {
    const auto job = slurm_job(c, id);
    const auto it = job.find("JobState");
    return it == job.end() ? "" : it->second;
}

// Polls until pred() holds or the deadline passes; returns whether it held.
template <class Pred>
bool slurm_wait_for(Pred pred, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
}

struct FileIdentity {
    ino_t inode = 0;
    long long mtime_ns = 0;
    bool operator==(const FileIdentity&) const = default;
};

// Journal files of chunks [0, end_chunk) of every rung: name -> identity.
std::map<std::string, FileIdentity> slurm_journal_of(const fs::path& workdir, int end_chunk) {
    std::map<std::string, FileIdentity> files;
    static const std::regex chunk(R"(chunk_([0-9]+)\.bin)");
    std::error_code ec;
    for (fs::recursive_directory_iterator it(workdir / ".ladder", ec), end; !ec && it != end; it.increment(ec)) {
        std::smatch m;
        const std::string name = it->path().filename().string();
        if (!std::regex_match(name, m, chunk) || std::stoi(m[1]) >= end_chunk) continue;
        struct stat st {};
        if (::stat(it->path().c_str(), &st) != 0) continue;
        files[fs::relative(it->path(), workdir).string()] =
            FileIdentity{st.st_ino, static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
    }
    return files;
}

TEST(SlurmCluster, SubmitShChainsPlanShardsAndStitchAndARequeuedShardKeepsItsChunks) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root: tests/slurm/one_node_cluster.sh runs munged, slurmctld and slurmd as root "
                        "(slurmd starts each job as its user); deploy/slurm is still run with bash by "
                        "Deploy.SlurmScriptsMakeAValidLadder";
    const fs::path root = fresh_dir("slurm-cluster");
    const OneNodeCluster cluster(root / "cluster");
    ASSERT_EQ(cluster.start().exit_code, 0) << cluster.start().out << cluster.start().err;

    // 320 s at 2-s chunks: 160 chunks, 40 per array task, five times the
    // task's 8 encoder slots (--cpu-slots 8), so that task 0 has many chunks
    // still to do when its first one is journaled. 10 fps at 160x120 keeps
    // it cheap (20-frame chunks).
    const fs::path source = root / "in/title.mp4";
    fs::create_directories(source.parent_path());
    fs::copy_file(make_clip("slurm-title", {160, 120, "10", 320.0, true, ""}), source);
    const fs::path workdir = root / "work/title";
    const fs::path outdir = root / "out/title";
    const fs::path logs = root / "submitted-from";
    fs::create_directories(logs);

    // As a user would: from a folder of their own (the logs land there),
    // with the paths in the environment sbatch passes on.
    const ProcessResult submitted = run_process(
        {"bash", "-c", "cd \"$1\" && exec bash \"$2\"", "submit", logs.string(), (kSlurmScripts / "submit.sh").string()},
        {cluster.conf_env(), "SOURCE=" + source.string(), "WORKDIR=" + workdir.string(), "OUTDIR=" + outdir.string(),
         std::string("LADDER=") + LADDER_BINARY},
        60);
    ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
    std::smatch ids;
    ASSERT_TRUE(std::regex_search(submitted.out, ids, std::regex(R"(plan (\d+), encode (\d+) \(array\), stitch (\d+))")))
        << submitted.out;
    const std::string plan = ids[1], encode = ids[2], stitch = ids[3];

    ASSERT_TRUE(slurm_wait_for([&] { return slurm_state(cluster, plan) == "COMPLETED"; }, 120))
        << "plan: " << slurm_state(cluster, plan) << "\n" << read_text(logs / ("ladder-plan-" + plan + ".out"));
    const auto plan_json = nlohmann::json::parse(read_text(workdir / "plan.json"));
    const int chunks = static_cast<int>(plan_json["chunks"].size());
    const int rungs = static_cast<int>(plan_json["ladder"]["rungs"].size());
    ASSERT_EQ(chunks, 160);
    const int task0_end = chunks / 4;  // shard 0 of 4: chunks [0, C/4)

    // Task 0 once it has finished a chunk; the stitch meanwhile waits on the
    // whole array.
    const std::string task0 = encode + "_0";
    ASSERT_TRUE(slurm_wait_for([&] { return !slurm_journal_of(workdir, task0_end).empty(); }, 180))
        << "task 0: " << slurm_state(cluster, task0);
    ASSERT_EQ(slurm_state(cluster, task0), "RUNNING");
    const auto stitch_waiting = slurm_job(cluster, stitch);
    EXPECT_EQ(stitch_waiting.at("JobState"), "PENDING");
    EXPECT_NE(stitch_waiting.at("Dependency").find("afterok:" + encode), std::string::npos)
        << stitch_waiting.at("Dependency");

    const ProcessResult requeue = run_process({"scontrol", "requeue", task0}, {cluster.conf_env()}, 30);
    ASSERT_EQ(requeue.exit_code, 0) << requeue.err;
    // The old attempt has ended (its ladder exited on SIGTERM) once Slurm
    // holds the task pending again.
    ASSERT_TRUE(slurm_wait_for([&] { return slurm_state(cluster, task0) == "PENDING"; }, 60))
        << slurm_state(cluster, task0);
    const auto kept = slurm_journal_of(workdir, task0_end);
    ASSERT_GE(kept.size(), 1u);
    ASSERT_LT(kept.size(), static_cast<std::size_t>(task0_end * rungs)) << "requeued too late to prove anything";
    // Slurm holds a requeued job for its credential lifetime (120 s); a
    // preempted task waits the same way. The test lets it start in 5 s, not
    // now: slurmd revoked the old attempt's credential when it ended and
    // compares credentials to that at one-second resolution, so an attempt
    // started within the same second is killed ("Job credential revoked").
    const ProcessResult release =
        run_process({"scontrol", "update", "JobId=" + task0, "StartTime=now+5"}, {cluster.conf_env()}, 30);
    ASSERT_EQ(release.exit_code, 0) << release.err;

    // Until the stitch ends, or an encode task fails (then the stitch's
    // afterok never holds and it would wait for ever): within the test's
    // CTest time, so a failure is reported with the logs below.
    const auto ended = [](const std::string& s) {
        return s == "COMPLETED" || s == "FAILED" || s == "CANCELLED" || s == "TIMEOUT" || s == "NODE_FAIL";
    };
    ASSERT_TRUE(slurm_wait_for(
        [&] {
            if (ended(slurm_state(cluster, stitch))) return true;
            for (int i = 0; i < 4; ++i) {
                const std::string s = slurm_state(cluster, encode + "_" + std::to_string(i));
                if (ended(s) && s != "COMPLETED") return true;
            }
            return false;
        },
        150))
        << "stitch: " << slurm_state(cluster, stitch);
    const std::string task0_log = read_text(logs / ("ladder-encode-" + encode + "_0.out"));
    const std::string stitch_log = read_text(logs / ("ladder-stitch-" + stitch + ".out"));
    ASSERT_EQ(slurm_state(cluster, stitch), "COMPLETED") << stitch_log << "\ntask 0:\n" << task0_log;
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(slurm_state(cluster, encode + "_" + std::to_string(i)), "COMPLETED") << "task " << i;
    EXPECT_EQ(slurm_job(cluster, task0).at("Restarts"), "1");

    // The requeued attempt found its chunks and encoded only the rest; the
    // first attempt's lines are kept above it (--open-mode=append).
    std::printf("[ metric   ] task 0 kept %zu of its %d chunk files when requeued; its log's ladder lines:\n",
                kept.size(), task0_end * rungs);
    for (const std::regex line(R"((^|\n)(ladder: [^\n]*))"); const auto& m :
         std::vector<std::smatch>(std::sregex_iterator(task0_log.begin(), task0_log.end(), line), {}))
        std::printf("    %s\n", m[2].str().c_str());
    EXPECT_EQ(slurm_journal_of(workdir, task0_end).size(), static_cast<std::size_t>(task0_end * rungs));
    const auto after = slurm_journal_of(workdir, task0_end);
    for (const auto& [file, identity] : kept) {
        ASSERT_TRUE(after.count(file)) << file << " is gone";
        EXPECT_EQ(after.at(file), identity) << file << " was written again";
    }
    EXPECT_NE(task0_log.find("ladder: interrupted by SIGTERM; the shard's finished chunks are kept"),
              std::string::npos)
        << task0_log;
    const std::string done_line = "ladder: shard 0/4: chunks 0-" + std::to_string(task0_end - 1) + " of " +
                                  std::to_string(chunks) + " x " + std::to_string(rungs) + " rung(s): " +
                                  std::to_string(task0_end * rungs - static_cast<int>(kept.size())) + " encoded, " +
                                  std::to_string(kept.size()) + " already there";
    EXPECT_NE(task0_log.find(done_line), std::string::npos) << "no '" << done_line << "' in:\n" << task0_log;

    // The ladder: valid, and the same frames at the same positions as one
    // process makes of the same source with the same (default) settings.
    const ProcessResult valid = run_ladder({"validate", outdir.string()}, {}, 120);
    EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
    const fs::path single = root / "one-process";
    const ProcessResult one = run_ladder({"encode", source.string(), "-o", single.string(), "-q"}, {}, 300);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    for (const auto& rung : plan_json["ladder"]["rungs"]) {
        const std::string name = rung["name"];
        SCOPED_TRACE(name);
        const fs::path a = outdir / name / "index.m3u8", b = single / name / "index.m3u8";
        const FileFacts fa = probe(a), fb = probe(b);
        ASSERT_EQ(fa.video.size(), 1u);
        EXPECT_EQ(fa.video[0].frames, 3200);
        EXPECT_EQ(fa.video[0].frames, fb.video[0].frames);
        EXPECT_NEAR(fa.video[0].duration, fb.video[0].duration, 1e-6);
        EXPECT_EQ(key_frame_indexes(a), key_frame_indexes(b));
        EXPECT_EQ(decode_errors(a), "");
        // Next to each other, frames of this moving picture differ by about
        // 22 dB; encoded in place they are near 40 (tests/e2e/shard_test.cpp).
        const auto psnr = psnr_per_frame(a, source, rung["width"].get<int>(), rung["height"].get<int>());
        ASSERT_EQ(psnr.size(), 3200u);
        for (std::size_t i = 0; i < psnr.size(); ++i) EXPECT_GT(psnr[i], 30.0) << "frame " << i;
    }
}

}  // namespace
}  // namespace ladder::test
