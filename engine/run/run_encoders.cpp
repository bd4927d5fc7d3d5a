#include "engine/run/run_encoders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/run/preflight.hpp"
#include "engine/encode/chunk_verification.hpp"
#include "gpu/software_encoders.hpp"

namespace ladder::engine {

EncoderSettings settings_for(const RungSpec& rung, const SourceInfo& src, int preset) {
    EncoderSettings s;
    s.width = rung.width;
    s.height = rung.height;
    s.pix_fmt = src.pix_fmt;
    s.frame_rate = src.frame_rate;
    s.bitrate_kbps = rung.bitrate_kbps;
    s.maxrate_kbps = rung.maxrate_kbps;
    s.bufsize_kbps = rung.bufsize_kbps;
    s.crf = rung.crf;
    s.preset = preset;
    s.color_primaries = src.color_primaries;
    s.color_trc = src.color_trc;
    s.colorspace = src.colorspace;
    s.color_range = src.color_range;
    s.hdr = src.hdr;
    return s;
}

std::string describe_slots(const gpu::GpuPool& pool) {
    struct Count {
        int sessions = 0;
        int threads = 0;  // each
        bool threaded = false;
    };
    std::map<std::string, Count> counts;  // by encoder name
    for (const auto& s : pool.slots()) {
        Count& c = counts[s.encoder];
        ++c.sessions;
        c.threads = s.threads;
        c.threaded = s.traits().threaded;
    }
    std::string out;
    for (const auto& [encoder, n] : counts) {
        out += fmt::format("{}{} {}", out.empty() ? "" : " + ", n.sessions, encoder);
        if (n.threaded) out += fmt::format(" x {} threads", n.threads);
    }
    return out;
}

std::vector<std::pair<std::string, int>> cpu_encoder_mix(const JobOptions& o) {
    return o.cpu_encoders.empty() ? std::vector<std::pair<std::string, int>>{{o.encoder, o.cpu_slots}} : o.cpu_encoders;
}

Encoders plan_encoders(const JobOptions& options, const JobSeams& seams, const CheckedSource& source) {
    Encoders e;
    if (options.isolation == EncoderIsolation::process && !seams.encoder_factory)
        e.processes = std::make_unique<EncoderProcesses>(options.encoder_stall_timeout);
    e.factory = seams.encoder_factory ? seams.encoder_factory
                : e.processes         ? process_encoder_factory(*e.processes)
                                      : EncoderFactory(make_encoder_backend);
    DeviceRequest request;
    request.policy = options.policy;
    request.sessions_per_gpu = options.sessions_per_gpu;
    // Budget's CRFs are decided on the frames: they must be the same on
    // every machine, so it decodes and scales on the CPU (NVDEC's scaler
    // makes other frames than swscale: docs/benchmarks.md).
    request.decode =
        options.rate_mode == RateMode::budget && options.decode == DecodeMode::automatic ? DecodeMode::cpu
                                                                                          : options.decode;
    request.cpu_mix = cpu_encoder_mix(options);
    request.cpu_requested = options.cpu_slots > 0 || !options.cpu_encoders.empty();
    request.cpu_threads = options.cpu_threads;
    request.inventory = seams.inventory;
    request.encoder_factory = e.factory;
    e.devices =
        plan_devices(request, source.info, settings_for(source.ladder.rungs.front(), source.info, options.preset));
    // GPU encoders were opened once by plan_devices (with the first rung):
    // every rung must still be within their limits. CPU ones are checked here.
    std::vector<std::string> cpu_encoders, gpu_encoders;
    for (const auto& s : e.devices.slots) {
        auto& list = s.kind == gpu::DeviceKind::cpu ? cpu_encoders : gpu_encoders;
        if (std::find(list.begin(), list.end(), s.encoder) == list.end()) list.push_back(s.encoder);
    }
    check_encoders(cpu_encoders, source.ladder);
    check_rungs_within_limits(gpu_encoders, source.ladder);
    return e;
}

std::set<std::string> verified_encoders(const gpu::GpuPool& pool, bool all) {
    std::vector<std::pair<std::string, std::string>> cpu;
    const auto known = gpu::probe_software_av1_encoders();
    for (const auto& slot : pool.slots()) {
        if (slot.traits().gpu()) continue;
        const auto it = std::find_if(known.begin(), known.end(),
                                     [&](const gpu::SoftwareEncoder& e) { return e.name == slot.encoder; });
        cpu.emplace_back(slot.encoder, it == known.end() ? "unknown" : it->version);
    }
    return encoders_to_verify(cpu, all);
}

void make_workers(EncoderWorkers& w, const JobOptions& options, DispatchMode mode, gpu::GpuPool& pool,
                  ChunkDispatcher& dispatcher,
                  Rungs& rungs, const EncoderFactory& factory,
                  const gpu::CpuInfo& cpu, std::chrono::steady_clock::time_point started, ProgressSink& progress) {
    w.slot_reports.resize(pool.size());
    w.failure_runs.assign(pool.size(), 0);
    WorkerSetup setup;
    setup.pool = &pool;
    setup.dispatcher = &dispatcher;
    setup.rungs = &rungs;
    setup.progress = &progress;
    setup.factory = factory;
    setup.job_start = started;
    setup.quarantine_after = options.quarantine_after;
    setup.slot_reports = &w.slot_reports;
    setup.failure_runs = &w.failure_runs;
    setup.idle_encoders = &w.idle_encoders;
    setup.no_more_work = &w.no_more_work;
    setup.chunks_encoding = &w.chunks_encoding;
    setup.session_ids = &w.session_ids;
    // --cpu-threads given is what every session gets, at the tail too: one
    // thread per session is how a user of SVT-AV1 2.x gets the same bytes
    // every run (docs/hardening.md, "SVT-AV1 2.x and threads").
    setup.cores = options.tail_threads && options.cpu_threads <= 0 ? cpu.cores : 0;
    setup.quality = options.quality;
    setup.verified_encoders = verified_encoders(pool, options.verify_every_chunk);
    const bool fixed = mode == DispatchMode::fixed;
    const int count = fixed ? static_cast<int>(rungs.size()) : static_cast<int>(pool.size());
    for (int i = 0; i < count; ++i) w.workers.push_back(std::make_unique<EncoderWorker>(setup, fixed ? i : -1));
}

namespace {

// A run of several passes (budget rate control) reports each slot once,
// with what it did in all of them.
void add_slot(std::vector<SlotReport>& slots, const SlotReport& slot) {
    const auto same = std::find_if(slots.begin(), slots.end(), [&](const SlotReport& s) { return s.label == slot.label; });
    if (same == slots.end()) {
        slots.push_back(slot);
        return;
    }
    same->chunks += slot.chunks;
    same->busy_seconds += slot.busy_seconds;
    same->failures += slot.failures;
    same->quarantined = same->quarantined || slot.quarantined;
    same->processes = std::max(same->processes, slot.processes);  // the run's count so far, not the pass's
}

}  // namespace

void report_slots(JobReport& report, EncoderWorkers& w, const EncoderProcesses* processes) {
    if (processes)
        for (const auto& [id, count] : processes->started())
            if (static_cast<std::size_t>(id) < w.slot_reports.size())  // not the complexity analysis's
                w.slot_reports[static_cast<std::size_t>(id)].processes = count;
    for (const auto& slot : w.slot_reports)
        if (!slot.label.empty()) add_slot(report.slots, slot);  // slots that never got a chunk are left out
    std::map<std::pair<std::string, std::string>, MismatchRecord> mismatches;
    for (const auto& worker : w.workers) {
        report.retries.insert(report.retries.end(), worker->retries().begin(), worker->retries().end());
        report.sessions.insert(report.sessions.end(), worker->sessions().begin(), worker->sessions().end());
        for (const auto& [key, m] : worker->mismatches()) {
            auto& total = mismatches[key];
            if (total.count == 0) total = m;
            else total.count += m.count;
        }
    }
    for (const auto& entry : mismatches) {
        const MismatchRecord& m = entry.second;
        const auto same = std::find_if(report.mismatches.begin(), report.mismatches.end(), [&](const MismatchRecord& r) {
            return r.rung == m.rung && r.encoder == m.encoder;
        });
        if (same == report.mismatches.end()) report.mismatches.push_back(m);
        else same->count += m.count;  // an earlier pass's
    }
    const IdleEncoders::AheadCounts ahead = w.idle_encoders.ahead_counts();
    report.gpu_encoders_opened_ahead += ahead.opened;
    report.gpu_encoders_never_used += ahead.never_used;
    std::sort(report.sessions.begin(), report.sessions.end(),
              [](const SessionRecord& a, const SessionRecord& b) { return a.id < b.id; });
}

}  // namespace ladder::engine
