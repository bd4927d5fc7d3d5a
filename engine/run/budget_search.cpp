#include "engine/run/budget_search.hpp"

#include <fmt/format.h>

#include "engine/base/errors.hpp"

namespace ladder::engine {

namespace {

// What one pass made of a rung: every chunk's bytes from chunk 0 on, and
// the frames.
struct PassMade {
    std::vector<std::int64_t> bytes;
    std::int64_t frames = 0;
};

PassMade pass_made(const Rung& rung) {
    PassMade made;
    for (const auto& [index, d] : rung.delivered()) {
        if (index != static_cast<int>(made.bytes.size()))
            throw RunError(fmt::format("rung {}: the pass delivered no chunk {}", rung.name(), made.bytes.size()));
        made.bytes.push_back(d.bytes);
        made.frames += d.frames;
    }
    return made;
}

void note_search(const Rung& rung, int crf, const PassMade& made, const RungCrfSearch& search, double frame_rate,
                 ProgressSink& progress) {
    std::int64_t bytes = 0;
    for (auto b : made.bytes) bytes += b;
    const double seconds = static_cast<double>(made.frames) / frame_rate;
    const double kbps = seconds > 0 ? static_cast<double>(bytes) * 8 / 1000 / seconds : 0;
    const CrfChoice& choice = search.choice();
    progress.note(NoteLevel::info,
                  search.settled()
                      ? fmt::format("rung {}: CRF {} made {:.0f} kb/s of {} kb/s: settled ({}, CRF {}{})", rung.name(),
                                    crf, kbps, rung.spec().bitrate_kbps, crf_verdict_name(choice.verdict), choice.crf,
                                    choice.verdict == CrfVerdict::mixed ? fmt::format(" and {}", choice.crf + 1) : "")
                      : fmt::format("rung {}: CRF {} made {:.0f} kb/s of {} kb/s: trying CRF {}", rung.name(), crf,
                                    kbps, rung.spec().bitrate_kbps, choice.crf));
}

}  // namespace

LadderCrfSearch ladder_search(const LadderSpec& ladder, AVRational frame_rate) {
    std::vector<LadderCrfSearch::Rung> rungs;
    for (const auto& r : ladder.rungs)
        rungs.push_back({static_cast<double>(r.bitrate_kbps), std::int64_t{r.width} * r.height});
    return LadderCrfSearch(rungs, av_q2d(frame_rate));
}

std::vector<ChunkCrfs> chunk_crfs_of(const std::optional<LadderCrfSearch>& search) {
    std::vector<ChunkCrfs> out;
    if (!search) return out;
    for (std::size_t i = 0; i < search->size(); ++i) {
        const RungCrfSearch& rung = search->rung(i);
        const CrfChoice& choice = rung.choice();
        ChunkCrfs crfs;
        crfs.crf = choice.crf;
        if (rung.settled())
            for (std::size_t k = 0; k < choice.chunk_crf.size(); ++k)
                if (choice.chunk_crf[k] != choice.crf) crfs.by_chunk[static_cast<int>(k)] = choice.chunk_crf[k];
        crfs.sits_out = !rung.settled() && !search->searching(i);
        out.push_back(std::move(crfs));
    }
    return out;
}

void record_pass(LadderCrfSearch& search, const std::vector<bool>& searched, const Rungs& rungs, double frame_rate,
                 ProgressSink& progress) {
    for (std::size_t i = 0; i < search.size(); ++i) {
        if (!searched[i]) continue;
        const int crf = search.rung(i).choice().crf;
        const PassMade made = pass_made(*rungs[i]);
        search.record(i, made.bytes, made.frames);
        note_search(*rungs[i], crf, made, search.rung(i), frame_rate, progress);
    }
}

void report_searches(const std::optional<LadderCrfSearch>& search, JobReport& report) {
    if (!search) return;
    for (std::size_t i = 0; i < search->size() && i < report.rungs.size(); ++i) {
        RungReport& r = report.rungs[i];
        const CrfChoice& choice = search->rung(i).choice();
        r.crf = choice.crf;
        r.crf_search = crf_verdict_name(choice.verdict);
        r.crf_encodes = search->rung(i).trials();
        r.chunk_crf = choice.chunk_crf;
    }
}

void check_budget_request(const JobOptions& options, const std::vector<gpu::EncoderSlot>& slots) {
    if (options.rate_mode != RateMode::budget) return;
    if (options.shard)
        throw InputError("--rate-control budget decides each rung's quality from all of its chunks, which a shard "
                         "does not have: encode plans and shards with --rate-control vbr, or the whole source in one "
                         "run");
    for (const auto& slot : slots)
        if (!slot.traits().takes_crf)
            throw InputError(fmt::format("--rate-control budget encodes at a constant quality, which {} ({}) does not "
                                         "take: encode on the CPU with SVT-AV1 (--policy cpu --encoder libsvtav1), "
                                         "or use --rate-control vbr",
                                         slot.encoder, slot.label));
}

}  // namespace ladder::engine
