// Encode policies end to end on a described machine: which GPUs get a
// pre-flight encoder, what happens when none can encode, and that a GPU
// encoder failing in the middle of a run goes through the scheduler's fault
// path. The GPU encoders are stand-ins (real SVT-AV1 behind a GPU slot):
// this machine has no GPU, the lent H100 has no NVENC (docs/gpu-verification.md).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <map>
#include <mutex>
#include <set>

#include "av/logging.hpp"
#include "engine/base/errors.hpp"
#include "engine/run/job.hpp"
#include "engine/base/job_report.hpp"
#include "engine/check/ladder_validator.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

gpu::NvidiaGpu nvidia(int index, const std::string& name, bool av1, const std::string& reason = "") {
    gpu::NvidiaGpu g;
    g.index = index;
    g.nvml_index = index;
    g.cuda_ordinal = index;
    g.name = name;
    g.nvenc.session_opened = av1;
    g.nvenc.av1_encode = av1;
    g.nvenc.reason = reason;
    g.nvdec = {{"h264", 8, true, 4096, 4096, 7}, {"hevc", 8, true, 8192, 8192, 7}, {"av1", 8, true, 8192, 8192, 7}};
    return g;
}

gpu::DeviceInventory hopper() {
    gpu::DeviceInventory inv;
    inv.ffmpeg_version = "7.1";
    inv.ffmpeg_av1_nvenc = true;
    inv.nvidia = {nvidia(0, "NVIDIA H200", false, "no NVENC engine")};
    inv.intel_status = "oneVPL found no Intel GPU";
    return inv;
}

gpu::DeviceInventory two_l4() {
    gpu::DeviceInventory inv;
    inv.ffmpeg_version = "7.1";
    inv.ffmpeg_av1_nvenc = true;
    inv.nvidia = {nvidia(0, "NVIDIA L4", true), nvidia(1, "NVIDIA L4", true)};
    inv.intel_status = "oneVPL found no Intel GPU";
    return inv;
}

struct Notes final : engine::ProgressSink {
    std::mutex mu;
    std::vector<std::string> lines;
    void note(engine::NoteLevel level, const std::string& m) override {
        std::lock_guard lock(mu);
        lines.push_back((level == engine::NoteLevel::warning ? "warning: " : "info: ") + m);
    }
    bool any(const std::string& needle) {
        std::lock_guard lock(mu);
        for (const auto& l : lines)
            if (l.find(needle) != std::string::npos) return true;
        return false;
    }
};

// GPU slots encode with SVT-AV1 on the CPU; hooks decide what a GPU does.
struct StandInGpus {
    std::mutex mu;
    std::set<std::string> probed;
    std::set<std::string> refuse_probe;      // slot labels whose pre-flight open fails
    std::string fail_every_encode_on;        // slot label whose chunks all fail
    // Encoders that encoded a chunk, by slot label and rung height.
    std::map<std::pair<std::string, int>, int> opened;
    // Encoders alive at once per slot label: now, and the most.
    std::map<std::string, int> alive, most_alive;
    engine::EncoderFactory factory() {
        return [this](const gpu::EncoderSlot& slot, const engine::EncoderSettings& settings)
                   -> std::unique_ptr<engine::EncoderBackend> {
            if (slot.kind == gpu::DeviceKind::cpu) return engine::make_encoder_backend(slot, settings);
            gpu::EncoderSlot cpu = slot;
            cpu.kind = gpu::DeviceKind::cpu;
            cpu.set_encoder("libsvtav1");
            return std::make_unique<Backend>(*this, slot.label, settings.height,
                                             engine::make_encoder_backend(cpu, settings));
        };
    }
    struct Backend final : engine::EncoderBackend {
        Backend(StandInGpus& owner, std::string label, int height, std::unique_ptr<engine::EncoderBackend> real)
            : owner_(owner), label_(std::move(label)), height_(height), real_(std::move(real)) {
            std::lock_guard lock(owner_.mu);
            const int n = ++owner_.alive[label_];
            owner_.most_alive[label_] = std::max(owner_.most_alive[label_], n);
        }
        ~Backend() override {
            std::lock_guard lock(owner_.mu);
            --owner_.alive[label_];
        }
        Backend(const Backend&) = delete;
        Backend& operator=(const Backend&) = delete;
        engine::EncodedChunk encode(const engine::RawChunk& chunk, std::stop_token stop) override {
            if (!encoded_) {  // a run's encoder, not the pre-flight's probe
                std::lock_guard lock(owner_.mu);
                ++owner_.opened[{label_, height_}];
                encoded_ = true;
            }
            if (label_ == owner_.fail_every_encode_on)
                throw engine::RunError(fmt::format("opening av1_nvenc on {}: OpenEncodeSessionEx failed: out of memory "
                                                   "(10): session limit",
                                                   label_));
            return real_->encode(chunk, stop);
        }
        void probe() override {
            std::lock_guard lock(owner_.mu);
            owner_.probed.insert(label_);
            if (owner_.refuse_probe.count(label_))
                throw engine::RunError(fmt::format("opening av1_nvenc on {}: no capable device", label_));
        }
        StandInGpus& owner_;
        std::string label_;
        int height_;
        bool encoded_ = false;
        std::unique_ptr<engine::EncoderBackend> real_;
    };
};

engine::JobOptions small_job(const std::string& name, const std::string& policy) {
    av::quiet_library_logs();
    engine::JobOptions o;
    o.input = make_clip("gpu-policy", {320, 240, "25", 3.0, true, ""});
    o.outdir = fresh_dir(name) / "out";
    o.ladder = engine::LadderSpec{{{"240p", 320, 240, 300, 0, 0}, {"120p", 160, 120, 150, 0, 0}}};
    o.preset = 12;
    o.segment_seconds = 1.0;
    o.policy = gpu::parse_encode_policy(policy);
    return o;
}

std::set<std::string> slots_used(const engine::JobReport& r) {
    std::set<std::string> out;
    for (const auto& c : r.chunks) out.insert(c.slot);
    return out;
}

TEST(GpuPolicy, AllGpusOnAMachineWithoutNvencFailsFastNamingTheGpuAndWhy) {
    engine::JobOptions o = small_job("gpu-allgpus-hopper", "all-gpus");
    engine::JobSeams seams;
    seams.inventory = hopper;
    Notes notes;
    try {
        engine::run_job(o, notes, {}, seams);
        FAIL() << "expected an InputError";
    } catch (const engine::InputError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("--policy all-gpus"), std::string::npos) << msg;
        EXPECT_NE(msg.find("GPU 0 NVIDIA H200: no NVENC engine"), std::string::npos) << msg;
        EXPECT_NE(msg.find("oneVPL found no Intel GPU"), std::string::npos) << msg;
    }
    EXPECT_FALSE(fs::exists(o.outdir)) << "nothing is written before the pre-flight passes";
}

TEST(GpuPolicy, AutoFallsBackToTheCpuAndSaysWhy) {
    engine::JobOptions o = small_job("gpu-auto-hopper", "auto");
    engine::JobSeams seams;
    seams.inventory = hopper;
    o.cpu_slots = 2;
    Notes notes;
    const engine::JobReport r = engine::run_job(o, notes, {}, seams);
    EXPECT_TRUE(notes.any("encoding on the CPU")) << "auto says it fell back";
    EXPECT_TRUE(notes.any("GPU 0 NVIDIA H200: no NVENC engine"));
    ASSERT_EQ(r.dropped_devices.size(), 1u);
    EXPECT_EQ(r.dropped_devices[0], "GPU 0 NVIDIA H200: no NVENC engine");
    for (const auto& s : slots_used(r)) EXPECT_EQ(s.rfind("cpu", 0), 0u) << s;
    EXPECT_EQ(r.rungs[0].frames, 75);
    EXPECT_TRUE(engine::validate_hls_ladder(o.outdir).problems.empty());
}

TEST(GpuPolicy, ThePreflightOpensEncodersOnlyOnTheSelectedGpus) {
    StandInGpus gpus;
    engine::JobOptions o = small_job("gpu-list", "gpu:1");
    engine::JobSeams seams;
    seams.inventory = two_l4;
    o.sessions_per_gpu = 2;
    seams.encoder_factory = gpus.factory();
    Notes notes;
    const engine::JobReport r = engine::run_job(o, notes, {}, seams);
    EXPECT_EQ(gpus.probed, (std::set<std::string>{"gpu1:nvenc"})) << "GPU 0 was excluded: never opened";
    EXPECT_EQ(r.encoder_slots, 2) << "two sessions on GPU 1, no CPU sessions";
    for (const auto& s : slots_used(r)) EXPECT_EQ(s.rfind("gpu1:nvenc", 0), 0u) << s;
    EXPECT_EQ(r.rungs[1].frames, 75);
    EXPECT_TRUE(engine::validate_hls_ladder(o.outdir).problems.empty());
}

// The inventory opened an NVENC session on every GPU; FFmpeg's test encoder
// is opened once per GPU model, and GPUs of an opened model are used
// without one.
TEST(GpuPolicy, ThePreflightOpensOneTestEncoderPerGpuModel) {
    StandInGpus gpus;
    engine::JobOptions o = small_job("gpu-one-probe-per-model", "nvidia");
    engine::JobSeams seams;
    seams.inventory = two_l4;
    seams.encoder_factory = gpus.factory();
    Notes notes;
    engine::JobReport r = engine::run_job(o, notes, {}, seams);
    EXPECT_EQ(gpus.probed, (std::set<std::string>{"gpu0:nvenc"}));
    EXPECT_EQ(r.gpu_encoder_probes, 1);
    // GPU 1 keeps its slot without a test encoder of its own. Whether it
    // then takes one of this small job's six chunks is the scheduler's
    // timing (GPU 0 took them all in one CI run); the stand-in NVENC tests
    // check that every GPU encodes, on jobs with chunks for every slot.
    EXPECT_EQ(r.encoder_slots, 2) << "one session on each GPU";
    EXPECT_TRUE(r.dropped_devices.empty());
    for (const auto& s : slots_used(r)) EXPECT_EQ(s.rfind("gpu", 0), 0u) << s;
    EXPECT_TRUE(engine::validate_hls_ladder(o.outdir).problems.empty());

    // Two models: a test encoder on each.
    StandInGpus mixed;
    seams.inventory = [] {
        gpu::DeviceInventory inv = two_l4();
        inv.nvidia[1].name = "NVIDIA L40S";
        return inv;
    };
    seams.encoder_factory = mixed.factory();
    o.outdir = fresh_dir("gpu-one-probe-per-model-mixed") / "out";
    r = engine::run_job(o, notes, {}, seams);
    EXPECT_EQ(mixed.probed, (std::set<std::string>{"gpu0:nvenc", "gpu1:nvenc"}));
    EXPECT_EQ(r.gpu_encoder_probes, 2);
}

TEST(GpuPolicy, AGpuWhoseEncoderWillNotOpenIsDroppedWithAWarning) {
    StandInGpus gpus;
    gpus.refuse_probe = {"gpu0:nvenc"};
    engine::JobOptions o = small_job("gpu-drop", "nvidia");
    engine::JobSeams seams;
    seams.inventory = two_l4;
    seams.encoder_factory = gpus.factory();
    Notes notes;
    const engine::JobReport r = engine::run_job(o, notes, {}, seams);
    EXPECT_EQ(gpus.probed, (std::set<std::string>{"gpu0:nvenc", "gpu1:nvenc"}))
        << "a failed open is no verdict on the model: the next GPU of it is tried";
    EXPECT_TRUE(notes.any("warning: GPU 0 NVIDIA L4 cannot encode AV1 and is not used"));
    ASSERT_EQ(r.dropped_devices.size(), 1u);
    EXPECT_NE(r.dropped_devices[0].find("no capable device"), std::string::npos) << r.dropped_devices[0];
    EXPECT_EQ(slots_used(r), (std::set<std::string>{"gpu1:nvenc"}));

    gpus.refuse_probe = {"gpu0:nvenc", "gpu1:nvenc"};
    o.outdir = fresh_dir("gpu-drop-all") / "out";
    try {
        engine::run_job(o, notes, {}, seams);
        FAIL() << "expected an InputError";
    } catch (const engine::InputError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("GPU 0 NVIDIA L4: its encoder would not open"), std::string::npos) << msg;
        EXPECT_NE(msg.find("GPU 1 NVIDIA L4: its encoder would not open"), std::string::npos) << msg;
    }
}

TEST(GpuPolicy, ASessionLimitInTheMiddleOfARunGoesThroughTheFaultPath) {
    StandInGpus gpus;
    gpus.fail_every_encode_on = "gpu0:nvenc";
    engine::JobOptions o = small_job("gpu-session-limit", "gpu:0");
    engine::JobSeams seams;
    seams.inventory = two_l4;
    o.cpu_slots = 1;  // CPU sessions join the GPU one
    seams.encoder_factory = gpus.factory();
    Notes notes;
    const engine::JobReport r = engine::run_job(o, notes, {}, seams);
    EXPECT_FALSE(r.retries.empty()) << "the GPU's failures were retried elsewhere";
    bool named = false;
    for (const auto& t : r.retries) named |= t.error.find("session limit") != std::string::npos;
    EXPECT_TRUE(named);
    EXPECT_EQ(slots_used(r), (std::set<std::string>{"cpu0:svt"}));
    EXPECT_EQ(r.rungs[0].frames, 75);
    EXPECT_EQ(r.rungs[1].frames, 75);
    EXPECT_TRUE(engine::validate_hls_ladder(o.outdir).problems.empty());
}

// Sessions of at most 2 chunks, so that each GPU slot comes back to a rung
// several times; slots kept open per rung or closed at each session's end.
engine::JobReport short_gpu_sessions(StandInGpus& gpus, const std::string& name,
                                     std::function<gpu::DeviceInventory()> inventory) {
    engine::JobOptions o = small_job(name, "nvidia");
    engine::JobSeams seams;
    seams.inventory = std::move(inventory);
    o.segment_seconds = 0.2;  // 15 chunks per rung
    o.hw_session_chunks = 2;
    seams.encoder_factory = gpus.factory();
    engine::NullProgressSink sink;
    const engine::JobReport r = engine::run_job(o, sink, {}, seams);
    EXPECT_EQ(r.rungs[0].frames, 75);
    EXPECT_EQ(r.rungs[1].frames, 75);
    EXPECT_TRUE(engine::validate_hls_ladder(o.outdir).problems.empty());
    return r;
}

TEST(GpuPolicy, AGpuSlotKeepsOneEncoderOpenPerRungAcrossItsSessions) {
    StandInGpus gpus;
    const engine::JobReport r = short_gpu_sessions(gpus, "gpu-idle-encoders", two_l4);
    std::map<std::pair<std::string, std::string>, int> sessions;  // (slot, rung)
    int went_on = 0;
    for (const auto& s : r.sessions) {
        ++sessions[{s.slot, s.rung}];
        went_on += !s.opened_encoder;
    }
    int came_back = 0;
    for (const auto& [key, n] : sessions) came_back += n > 1;
    ASSERT_GT(came_back, 0) << "no slot had a second session on a rung: the test shows nothing";
    EXPECT_GT(went_on, 0);
    for (const auto& [key, n] : gpus.opened)
        EXPECT_EQ(n, 1) << key.first << " opened " << n << " encoders for the " << key.second << "-line rung";
    nlohmann::json j;
    engine::to_json(j, r);
    for (const auto& slot : j.at("slots")) {
        int opened = 0;
        for (const auto& [key, n] : gpus.opened) opened += key.first == slot.at("label").get<std::string>() ? n : 0;
        EXPECT_EQ(slot.at("encoders_opened").get<int>(), opened) << slot.dump();
        EXPECT_LE(slot.at("encoders_opened").get<int>(), slot.at("sessions").get<int>()) << slot.dump();
    }
}

TEST(GpuPolicy, AGeForceSlotKeepsOnlyTheEncoderOfItsLastRung) {
    StandInGpus gpus;
    const engine::JobReport r = short_gpu_sessions(gpus, "gpu-geforce-sessions", [] {
        gpu::DeviceInventory inv = two_l4();
        for (auto& g : inv.nvidia) {
            g.name = "NVIDIA GeForce RTX 4090";
            g.nvenc.session_limit = 8;
        }
        return inv;
    });
    // The driver's cap counts sessions open at once: a slot never holds
    // two, so it closes the one it kept before it opens another.
    for (const auto& [label, most] : gpus.most_alive) EXPECT_EQ(most, 1) << label;
    int opened = 0, went_on = 0;
    for (const auto& [key, n] : gpus.opened) opened += n;
    for (const auto& s : r.sessions) went_on += !s.opened_encoder;
    EXPECT_EQ(opened + went_on, static_cast<int>(r.sessions.size()));
    EXPECT_GT(went_on, 0) << "no slot went on with its last rung's encoder: the test shows nothing";
    // A slot whose next session is on the rung of its last one goes on
    // with that encoder.
    for (std::size_t i = 1; i < r.sessions.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (r.sessions[j].slot == r.sessions[i].slot) {
                std::size_t last = j;
                for (std::size_t k = j; k < i; ++k)
                    if (r.sessions[k].slot == r.sessions[i].slot) last = k;
                if (r.sessions[last].rung == r.sessions[i].rung) {
                    EXPECT_FALSE(r.sessions[i].opened_encoder) << r.sessions[i].slot << " session " << r.sessions[i].id;
                }
                break;
            }
}

TEST(GpuPolicy, DecodeNvdecNeedsAGpuThatCanDecodeTheSource) {
    engine::JobOptions o = small_job("gpu-nvdec-caps", "auto");
    o.decode = engine::DecodeMode::nvdec;
    engine::JobSeams seams;
    seams.inventory = [] {
        gpu::DeviceInventory inv = hopper();
        inv.ffmpeg_nvdec = true;
        inv.nvidia[0].nvdec = {{"h264", 8, false, 0, 0, 0}};
        return inv;
    };
    Notes notes;
    try {
        engine::run_job(o, notes, {}, seams);
        FAIL() << "expected an InputError";
    } catch (const engine::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("GPU 0 NVIDIA H200: its NVDEC cannot decode 8-bit h264"),
                  std::string::npos)
            << e.what();
    }
    // auto decodes on the CPU instead, and says why.
    o.decode = engine::DecodeMode::automatic;
    o.cpu_slots = 1;
    const engine::JobReport r = engine::run_job(o, notes, {}, seams);
    EXPECT_EQ(r.decode_device, "cpu");
    EXPECT_EQ(r.frames_decoded_on_gpu, 0);
    EXPECT_TRUE(notes.any("decoding on the CPU: GPU 0 NVIDIA H200: its NVDEC cannot decode 8-bit h264"));
}

TEST(GpuPolicy, CliWithoutGpus) {
    const fs::path src = make_clip("gpu-policy", {320, 240, "25", 3.0, true, ""});
    const fs::path dir = fresh_dir("gpu-cli");
    const std::vector<std::string> quick{"--rung", "120p=160x120@200", "--preset", "12", "--format", "mp4"};
    auto args = [&](const std::string& out, std::vector<std::string> extra) {
        std::vector<std::string> a{"encode", src.string(), "-o", (dir / out).string()};
        a.insert(a.end(), quick.begin(), quick.end());
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    for (const char* policy : {"all-gpus", "nvidia", "intel"}) {
        ProcessResult r = run_ladder(args(policy, {"--policy", policy}));
        EXPECT_EQ(r.exit_code, 2) << policy << ": " << r.err;
        EXPECT_NE(r.err.find(fmt::format("ladder: error: --policy {}: no GPU can encode AV1 here", policy)),
                  std::string::npos)
            << r.err;
        EXPECT_FALSE(fs::exists(dir / policy)) << policy;
    }
    ProcessResult gpu3 = run_ladder(args("gpu3", {"--policy", "gpu:3"}));
    EXPECT_EQ(gpu3.exit_code, 2);
    EXPECT_NE(gpu3.err.find("there is no GPU 3 on this machine"), std::string::npos) << gpu3.err;
    ProcessResult nvdec = run_ladder(args("nvdec", {"--policy", "cpu", "--decode", "nvdec"}));
    EXPECT_EQ(nvdec.exit_code, 2);
    EXPECT_NE(nvdec.err.find("--decode nvdec: there is no NVIDIA GPU"), std::string::npos) << nvdec.err;
    ProcessResult bad = run_ladder(args("bad", {"--policy", "gpu:one"}));
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("'one' is not a GPU index"), std::string::npos) << bad.err;

    ProcessResult fallback = run_ladder(args("auto", {"--policy", "auto", "--progress", "plain"}));
    EXPECT_EQ(fallback.exit_code, 0) << fallback.err;
    EXPECT_NE(fallback.err.find("--policy auto: no GPU can encode AV1 here"), std::string::npos) << fallback.err;
    EXPECT_NE(fallback.err.find("encoding on the CPU"), std::string::npos) << fallback.err;
    EXPECT_EQ(probe(dir / "auto" / "120p.mp4").video.at(0).frames, 75);
}

}  // namespace
}  // namespace ladder::test
