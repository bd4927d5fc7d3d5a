// The multi-machine manifests in deploy/ (docs/deployment.md, "Many machines:
// plan, shards, stitch") are run, not only read: the Kubernetes file is
// parsed with a real YAML parser (python3-yaml) and checked for what makes
// the Jobs work together (Indexed completions matching --shard, the
// completion index reaching the args, the init containers' wait targets, the
// shared claim in every pod); then its three command lines run as written,
// with the shared volume at a temporary folder and the shards as parallel
// processes. The Slurm scripts run under bash with the variables Slurm would
// set (no cluster: what a user does to run one step by hand; a real Slurm
// cluster runs them in tests/e2e/slurm_cluster_test.cpp). Both ladders must
// pass `ladder validate`.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

const fs::path kDeployKubernetes = fs::path(LADDER_SOURCE_DIR) / "deploy/kubernetes/ladder-farm.yaml";
const fs::path kDeploySlurm = fs::path(LADDER_SOURCE_DIR) / "deploy/slurm";

// Every document of a YAML file as one JSON array (empty documents dropped).
constexpr const char* kDeployYamlToJson = R"(
import json, sys, yaml
with open(sys.argv[1]) as f:
    docs = [d for d in yaml.safe_load_all(f) if d is not None]
json.dump(docs, sys.stdout)
)";

nlohmann::json deploy_load_yaml(const fs::path& file) {
    const ProcessResult r = run_process({"python3", "-c", kDeployYamlToJson, file.string()}, {}, 60);
    if (r.exit_code != 0)
        throw std::runtime_error("python3 could not read " + file.string() +
                                 " (needs python3-yaml, see scripts/install-deps.sh): " + r.err);
    return nlohmann::json::parse(r.out);
}

// kind and name as plain strings: GCC 14 takes a reference returned from a
// call with temporary std::string arguments for a dangling one.
const nlohmann::json& deploy_find(const nlohmann::json& docs, const char* kind, const char* name) {
    for (const auto& d : docs)
        if (d.value("kind", "") == kind && d["metadata"].value("name", "") == name) return d;
    throw std::runtime_error(std::string("no ") + kind + " named " + name + " in " + kDeployKubernetes.string());
}

std::vector<std::string> deploy_strings(const nlohmann::json& j) {
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& s : j) out.push_back(s.get<std::string>());
    return out;
}

// The one container of a Job's pod that runs ladder.
const nlohmann::json& deploy_ladder_container(const nlohmann::json& job) {
    const auto& containers = job["spec"]["template"]["spec"]["containers"];
    if (containers.size() != 1)
        throw std::runtime_error(job["metadata"]["name"].get<std::string>() + ": not one container");
    return containers[0];
}

std::vector<std::string> deploy_args(const nlohmann::json& job) {
    return deploy_strings(deploy_ladder_container(job)["args"]);
}

// The value after flag in args ("" when absent).
std::string deploy_flag(const std::vector<std::string>& args, const std::string& flag) {
    for (size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == flag) return args[i + 1];
    return "";
}

// What a pod would see: the shared volume's mount point /data moved to root,
// and $(JOB_COMPLETION_INDEX) expanded the way the kubelet does.
std::vector<std::string> deploy_as_run(const std::vector<std::string>& args, const fs::path& root, int index = -1) {
    std::vector<std::string> out;
    for (std::string a : args) {
        if (a == "/data" || a.rfind("/data/", 0) == 0) a = root.string() + a.substr(5);
        const std::string var = "$(JOB_COMPLETION_INDEX)";
        for (size_t at = a.find(var); at != std::string::npos && index >= 0; at = a.find(var))
            a.replace(at, var.size(), std::to_string(index));
        out.push_back(a);
    }
    return out;
}

std::string deploy_joined(const std::vector<std::string>& args) {
    std::string s;
    for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
    return s;
}

double deploy_seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs every command at once (one thread each), as the shards of one job
// run on separate machines; returns their results in order.
std::vector<ProcessResult> deploy_run_parallel(const std::vector<std::vector<std::string>>& commands) {
    std::vector<ProcessResult> results(commands.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < commands.size(); ++i)
        threads.emplace_back([&, i] { results[i] = run_process(commands[i], {}, 180); });
    for (auto& t : threads) t.join();
    return results;
}

// A tiny source: 4 s at the default 2-second chunks is 2 chunks, so of the
// 4 shards two encode a chunk each and two have none (and say so, exit 0,
// with a report): the command lines are what is tested here (shard
// boundaries and frame exactness are tests/e2e/shard_test.cpp's), and the
// default preset stays quick at 160x120.
fs::path deploy_clip() {
    return make_clip("deploy-title", {160, 120, "25", 4.0, true, ""});
}
constexpr long kDeployClipFrames = 100;

// Every rung of a finished HLS ladder has every frame of the source, and the
// ladder validates.
void deploy_expect_complete_ladder(const fs::path& out) {
    ASSERT_TRUE(fs::exists(out / "master.m3u8")) << out;
    const ProcessResult v = run_ladder({"validate", out.string()}, {}, 120);
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    int rungs = 0;
    for (const auto& e : fs::directory_iterator(out)) {
        if (!e.is_directory() || e.path().filename() == "audio" || !fs::exists(e.path() / "index.m3u8")) continue;
        ++rungs;
        const FileFacts f = probe(e.path() / "index.m3u8");
        ASSERT_EQ(f.video.size(), 1u) << e.path();
        EXPECT_EQ(f.video[0].frames, kDeployClipFrames) << e.path();
        EXPECT_EQ(f.audio.size(), 0u) << "audio is its own rendition";
    }
    EXPECT_GE(rungs, 1);
    EXPECT_TRUE(fs::exists(out / "audio/aac/index.m3u8"));
}

TEST(Deploy, KubernetesJobsAgreeWithEachOtherAndTheCli) {
    const nlohmann::json docs = deploy_load_yaml(kDeployKubernetes);
    std::multiset<std::string> kinds;
    for (const auto& d : docs) kinds.insert(d.value("kind", ""));
    EXPECT_EQ(kinds, (std::multiset<std::string>{"ServiceAccount", "Role", "RoleBinding", "Job", "Job", "Job"}));

    // The init containers may read Jobs: the Role grants it, the binding
    // gives it to the ServiceAccount their pods run as.
    const nlohmann::json* sa = nullptr;
    const nlohmann::json* role = nullptr;
    const nlohmann::json* binding = nullptr;
    for (const auto& d : docs) {
        if (d.value("kind", "") == "ServiceAccount") sa = &d;
        if (d.value("kind", "") == "Role") role = &d;
        if (d.value("kind", "") == "RoleBinding") binding = &d;
    }
    ASSERT_TRUE(sa && role && binding);
    const std::string sa_name = (*sa)["metadata"]["name"];
    bool reads_jobs = false;
    for (const auto& rule : (*role)["rules"]) {
        const auto groups = deploy_strings(rule["apiGroups"]);
        const auto resources = deploy_strings(rule["resources"]);
        const auto verbs = deploy_strings(rule["verbs"]);
        const std::set<std::string> vs(verbs.begin(), verbs.end());
        reads_jobs |= std::find(groups.begin(), groups.end(), "batch") != groups.end() &&
                      std::find(resources.begin(), resources.end(), "jobs") != resources.end() && vs.count("get") &&
                      vs.count("list") && vs.count("watch");
    }
    EXPECT_TRUE(reads_jobs) << (*role)["rules"].dump();
    EXPECT_EQ((*binding)["roleRef"]["kind"], "Role");
    EXPECT_EQ((*binding)["roleRef"]["name"], (*role)["metadata"]["name"]);
    ASSERT_EQ((*binding)["subjects"].size(), 1u);
    EXPECT_EQ((*binding)["subjects"][0]["kind"], "ServiceAccount");
    EXPECT_EQ((*binding)["subjects"][0]["name"], sa_name);

    const auto& plan = deploy_find(docs, "Job", "ladder-plan");
    const auto& encode = deploy_find(docs, "Job", "ladder-encode");
    const auto& stitch = deploy_find(docs, "Job", "ladder-stitch");

    // Every pod: the ladder image's entry point with args, the one shared
    // claim at /data, pod-level retries only (a Job needs Never or OnFailure;
    // backoffLimitPerIndex and podFailurePolicy need Never).
    for (const auto* job : {&plan, &encode, &stitch}) {
        const std::string name = (*job)["metadata"]["name"];
        const auto& pod = (*job)["spec"]["template"]["spec"];
        const auto& c = deploy_ladder_container(*job);
        EXPECT_EQ(c.value("image", ""), "ladder:latest") << name;
        EXPECT_FALSE(c.contains("command")) << name << ": the image's entry point is ladder, use args";
        EXPECT_EQ(pod.value("restartPolicy", ""), "Never") << name;
        std::string volume;
        for (const auto& v : pod["volumes"])
            if (v.contains("persistentVolumeClaim") &&
                v["persistentVolumeClaim"].value("claimName", "") == "ladder-shared")
                volume = v["name"];
        EXPECT_FALSE(volume.empty()) << name << ": no volume from the claim ladder-shared";
        bool mounted = false;
        for (const auto& m : c["volumeMounts"])
            mounted |= m.value("name", "") == volume && m.value("mountPath", "") == "/data";
        EXPECT_TRUE(mounted) << name << ": the shared claim is not mounted at /data";
    }

    // Each later step holds until the one before it is complete.
    const std::vector<std::pair<const nlohmann::json*, std::string>> waits{{&encode, "job/ladder-plan"},
                                                                           {&stitch, "job/ladder-encode"}};
    for (const auto& [job, target] : waits) {
        const std::string name = (*job)["metadata"]["name"];
        const auto& pod = (*job)["spec"]["template"]["spec"];
        EXPECT_EQ(pod.value("serviceAccountName", ""), sa_name) << name;
        ASSERT_EQ(pod["initContainers"].size(), 1u) << name;
        const auto& init = pod["initContainers"][0];
        std::vector<std::string> cmd = deploy_strings(init["command"]);
        for (const auto& a : deploy_strings(init["args"])) cmd.push_back(a);
        ASSERT_GE(cmd.size(), 2u) << name;
        EXPECT_EQ(cmd[0], "kubectl") << name;
        EXPECT_EQ(cmd[1], "wait") << name;
        const std::set<std::string> words(cmd.begin(), cmd.end());
        EXPECT_TRUE(words.count("--for=condition=complete")) << name << ": " << deploy_joined(cmd);
        EXPECT_TRUE(words.count(target)) << name << " waits for " << deploy_joined(cmd) << ", not " << target;
        bool timeout = false;
        for (const auto& w : words) timeout |= w.rfind("--timeout=", 0) == 0;
        EXPECT_TRUE(timeout) << name << ": a wait without --timeout gives up after 30 s";
    }
    EXPECT_FALSE(plan["spec"]["template"]["spec"].contains("initContainers"));

    // The encode Job: Indexed, N pods at once, N the same in --shard, the
    // index reaching the args through the declared variable.
    const auto& spec = encode["spec"];
    EXPECT_EQ(spec.value("completionMode", ""), "Indexed");
    const auto encode_args = deploy_args(encode);
    ASSERT_GE(encode_args.size(), 1u);
    EXPECT_EQ(encode_args[0], "encode");
    std::smatch m;
    const std::string shard = deploy_flag(encode_args, "--shard");
    ASSERT_TRUE(std::regex_match(shard, m, std::regex(R"(\$\(JOB_COMPLETION_INDEX\)/([0-9]+))"))) << shard;
    const int n = std::stoi(m[1]);
    EXPECT_EQ(spec.value("completions", -1), n) << "completions and the N of --shard differ";
    EXPECT_EQ(spec.value("parallelism", -1), n) << "parallelism and the N of --shard differ";
    bool index_env = false;
    for (const auto& e : deploy_ladder_container(encode)["env"])
        index_env |= e.value("name", "") == "JOB_COMPLETION_INDEX" &&
                     e["valueFrom"]["fieldRef"].value("fieldPath", "") ==
                         "metadata.annotations['batch.kubernetes.io/job-completion-index']";
    EXPECT_TRUE(index_env) << "JOB_COMPLETION_INDEX is not declared from the completion-index annotation";
    // Preemption: a pod the cluster stopped (DisruptionTarget; ladder exits
    // 143 on its SIGTERM) is retried without using up the index's retries;
    // only exit code 2 (bad usage or input) fails the index at once, so 1,
    // 130 and 143 are retried.
    bool ignores_disruptions = false;
    std::set<int> fail_index_codes;
    for (const auto& rule : spec["podFailurePolicy"]["rules"]) {
        const std::string action = rule.value("action", "");
        if (action == "Ignore" && rule.contains("onPodConditions"))
            for (const auto& c : rule["onPodConditions"]) ignores_disruptions |= c.value("type", "") == "DisruptionTarget";
        if (action == "FailIndex" && rule.contains("onExitCodes")) {
            EXPECT_EQ(rule["onExitCodes"].value("operator", ""), "In");
            for (const auto& v : rule["onExitCodes"]["values"]) fail_index_codes.insert(v.get<int>());
        }
    }
    EXPECT_TRUE(ignores_disruptions) << spec["podFailurePolicy"].dump();
    EXPECT_EQ(fail_index_codes, std::set<int>{2});
    // ladder cannot see the pod's CPU request: --cpu-slots says it.
    const auto& cpu = deploy_ladder_container(encode)["resources"]["requests"]["cpu"];
    EXPECT_EQ(deploy_flag(encode_args, "--cpu-slots"), cpu.is_string() ? cpu.get<std::string>() : cpu.dump())
        << "--cpu-slots and the CPU request differ";

    // The three command lines name the same work folder.
    const auto plan_args = deploy_args(plan);
    const auto stitch_args = deploy_args(stitch);
    ASSERT_GE(plan_args.size(), 2u);
    ASSERT_GE(stitch_args.size(), 2u);
    EXPECT_EQ(plan_args[0], "plan");
    EXPECT_EQ(stitch_args[0], "stitch");
    const std::string workdir = deploy_flag(plan_args, "-o");
    EXPECT_EQ(deploy_flag(encode_args, "--plan"), workdir + "/plan.json");
    EXPECT_EQ(stitch_args[1], workdir);
    for (const auto& p : {plan_args[1], workdir, deploy_flag(stitch_args, "-o")})
        EXPECT_EQ(p.rfind("/data/", 0), 0u) << p << " is not on the shared volume";
}

TEST(Deploy, KubernetesCommandLinesMakeAValidLadder) {
    const nlohmann::json docs = deploy_load_yaml(kDeployKubernetes);
    const auto& encode = deploy_find(docs, "Job", "ladder-encode");
    const int n = encode["spec"].value("completions", 0);
    ASSERT_GE(n, 1);
    const fs::path root = fresh_dir("deploy-kubernetes");  // the claim, mounted at /data
    const auto plan = deploy_as_run(deploy_args(deploy_find(docs, "Job", "ladder-plan")), root);
    const auto stitch = deploy_as_run(deploy_args(deploy_find(docs, "Job", "ladder-stitch")), root);
    ASSERT_GE(plan.size(), 4u);
    fs::create_directories(fs::path(plan[1]).parent_path());
    fs::copy_file(deploy_clip(), plan[1]);

    auto t0 = std::chrono::steady_clock::now();
    const ProcessResult planned = run_ladder(plan, {}, 120);
    ASSERT_EQ(planned.exit_code, 0) << deploy_joined(plan) << "\n" << planned.err;
    const double plan_s = deploy_seconds_since(t0);

    std::vector<std::vector<std::string>> shards;
    for (int i = 0; i < n; ++i) {
        std::vector<std::string> argv{LADDER_BINARY};
        for (const auto& a : deploy_as_run(deploy_args(encode), root, i)) {
            EXPECT_EQ(a.find("$("), std::string::npos) << a << ": a variable the pod would not expand";
            argv.push_back(a);
        }
        shards.push_back(argv);
    }
    t0 = std::chrono::steady_clock::now();
    const auto results = deploy_run_parallel(shards);
    const double shards_s = deploy_seconds_since(t0);
    const fs::path workdir = deploy_flag(plan, "-o");
    for (int i = 0; i < n; ++i) {
        EXPECT_EQ(results[i].exit_code, 0) << deploy_joined(shards[i]) << "\n" << results[i].err;
        const fs::path report =
            workdir / "reports" / ("shard-" + std::to_string(i) + "-of-" + std::to_string(n) + ".json");
        EXPECT_TRUE(fs::exists(report)) << report;
    }

    t0 = std::chrono::steady_clock::now();
    const ProcessResult stitched = run_ladder(stitch, {}, 120);
    ASSERT_EQ(stitched.exit_code, 0) << deploy_joined(stitch) << "\n" << stitched.err;
    const double stitch_s = deploy_seconds_since(t0);
    std::printf("[ metric   ] kubernetes: plan %.1f s, %d shards at once %.1f s, stitch %.1f s\n", plan_s, n, shards_s,
                stitch_s);
    deploy_expect_complete_ladder(deploy_flag(stitch, "-o"));
}

TEST(Deploy, SlurmScriptsMakeAValidLadder) {
    const std::string encode_script = read_text(kDeploySlurm / "encode.sbatch");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(encode_script, m, std::regex(R"((^|\n)#SBATCH --array=0-([0-9]+)[ \t]*\n)")))
        << "encode.sbatch has no '#SBATCH --array=0-K' line";
    const int n = std::stoi(m[2]) + 1;
    for (const char* script : {"plan.sbatch", "encode.sbatch", "stitch.sbatch", "submit.sh"}) {
        const std::string text = read_text(kDeploySlurm / script);
        EXPECT_EQ(text.rfind("#!/usr/bin/env bash\n", 0), 0u) << script;
        EXPECT_NE(text.find("\nset -euo pipefail\n"), std::string::npos) << script;
    }

    const fs::path root = fresh_dir("deploy-slurm");
    const fs::path source = root / "in/title.mp4";
    fs::create_directories(source.parent_path());
    fs::copy_file(deploy_clip(), source);
    const fs::path workdir = root / "work/title";
    const fs::path outdir = root / "out/title";
    // What sbatch passes on from the submitting shell; env(1) sets them over
    // anything this process inherited.
    const std::vector<std::string> env{"env", "SOURCE=" + source.string(), "WORKDIR=" + workdir.string(),
                                       "OUTDIR=" + outdir.string(), std::string("LADDER=") + LADDER_BINARY};
    auto with = [&](std::vector<std::string> extra, const std::string& script) {
        std::vector<std::string> argv = env;
        argv.insert(argv.end(), extra.begin(), extra.end());
        argv.push_back("bash");
        argv.push_back((kDeploySlurm / script).string());
        return argv;
    };

    auto t0 = std::chrono::steady_clock::now();
    const ProcessResult planned = run_process(with({}, "plan.sbatch"), {}, 120);
    ASSERT_EQ(planned.exit_code, 0) << planned.err;
    ASSERT_TRUE(fs::exists(workdir / "plan.json"));
    const double plan_s = deploy_seconds_since(t0);

    std::vector<std::vector<std::string>> tasks;
    for (int i = 0; i < n; ++i)
        tasks.push_back(
            with({"SLURM_ARRAY_TASK_ID=" + std::to_string(i), "SLURM_ARRAY_TASK_COUNT=" + std::to_string(n)},
                 "encode.sbatch"));
    t0 = std::chrono::steady_clock::now();
    const auto results = deploy_run_parallel(tasks);
    const double shards_s = deploy_seconds_since(t0);
    for (int i = 0; i < n; ++i) {
        EXPECT_EQ(results[i].exit_code, 0) << "array task " << i << "\n" << results[i].err;
        EXPECT_TRUE(
            fs::exists(workdir / "reports" / ("shard-" + std::to_string(i) + "-of-" + std::to_string(n) + ".json")))
            << "array task " << i;
    }

    t0 = std::chrono::steady_clock::now();
    const ProcessResult stitched = run_process(with({}, "stitch.sbatch"), {}, 120);
    ASSERT_EQ(stitched.exit_code, 0) << stitched.err;
    const double stitch_s = deploy_seconds_since(t0);
    std::printf("[ metric   ] slurm: plan %.1f s, %d array tasks at once %.1f s, stitch %.1f s\n", plan_s, n, shards_s,
                stitch_s);
    deploy_expect_complete_ladder(outdir);
}

}  // namespace
}  // namespace ladder::test
