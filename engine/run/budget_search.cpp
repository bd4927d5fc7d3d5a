#include "engine/run/budget_search.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>

#include "engine/base/errors.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace ladder::engine {

namespace {

// What one pass made of a rung: every chunk's bytes from chunk 0 on, and
// the frames.
struct PassMade {
    std::vector<std::int64_t> bytes;
    std::vector<std::int64_t> frames;
};

PassMade pass_made(const Rung& rung) {
    PassMade made;
    for (const auto& [index, d] : rung.delivered()) {
        if (index != static_cast<int>(made.bytes.size()))
            throw RunError(fmt::format("rung {}: the pass delivered no chunk {}", rung.name(), made.bytes.size()));
        made.bytes.push_back(d.bytes);
        made.frames.push_back(d.frames);
    }
    return made;
}

// "rung 720p: CRF 26 made 3532 kb/s of 2500 kb/s: trying CRF 31" (and the
// chunks asked at other CRFs), or how it settled.
std::string search_note(const Rung& rung, const std::vector<int>& crfs, const PassMade& made,
                        const RungCrfSearch& search, double frame_rate) {
    std::int64_t bytes = 0, frames = 0;
    for (auto b : made.bytes) bytes += b;
    for (auto f : made.frames) frames += f;
    const double seconds = static_cast<double>(frames) / frame_rate;
    const double kbps = seconds > 0 ? static_cast<double>(bytes) * 8 / 1000 / seconds : 0;
    const auto [low, high] = std::minmax_element(crfs.begin(), crfs.end());
    const std::string made_at = fmt::format("rung {}: CRF {} made {:.0f} kb/s of {} kb/s", rung.name(),
                                            *low == *high ? fmt::format("{}", *low) : fmt::format("{}-{}", *low, *high),
                                            kbps, rung.spec().bitrate_kbps);
    const CrfChoice& choice = search.choice();
    if (search.settled())
        return fmt::format("{}: settled at {:.0f} kb/s ({}, CRF {}{}{}, peak {:.2f}x the average)", made_at,
                           choice.kbps, crf_verdict_name(choice.verdict), choice.crf,
                           choice.verdict == CrfVerdict::mixed
                               ? fmt::format(" to {}", *std::max_element(choice.chunk_crf.begin(), choice.chunk_crf.end()))
                               : "",
                           search.peak_capped() > 0 ? fmt::format(", {} chunks capped", search.peak_capped()) : "",
                           search.peak_ratio());
    std::vector<std::string> asked;
    for (const auto& [chunk, crf] : search.other_chunk_crfs()) asked.push_back(fmt::format("{}:{}", chunk, crf));
    if (asked.empty()) return fmt::format("{}: trying CRF {}", made_at, choice.crf);
    return fmt::format("{}: trying CRF {} with chunk:CRF {} (segments capped for their peaks, or moved toward the band)",
                       made_at, choice.crf, fmt::join(asked, " "));
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
        for (const auto& [chunk, crf] : rung.other_chunk_crfs()) crfs.by_chunk[static_cast<int>(chunk)] = crf;
        crfs.sits_out = !rung.settled() && !search->searching(i);
        out.push_back(std::move(crfs));
    }
    return out;
}

void record_pass(LadderCrfSearch& search, const std::vector<bool>& searched, const Rungs& rungs, double frame_rate,
                 ProgressSink& progress) {
    for (std::size_t i = 0; i < search.size(); ++i) {
        if (!searched[i]) continue;
        const PassMade made = pass_made(*rungs[i]);
        std::vector<int> crfs;
        for (std::size_t k = 0; k < made.bytes.size(); ++k) crfs.push_back(search.rung(i).crf_of(k));
        search.record(i, made.bytes, made.frames);
        progress.note(NoteLevel::info, search_note(*rungs[i], crfs, made, search.rung(i), frame_rate));
    }
}

void report_searches(const std::optional<LadderCrfSearch>& search, JobReport& report) {
    if (!search) return;
    for (std::size_t i = 0; i < search->size(); ++i)
        report.settled_chunk_crf.push_back(search->rung(i).choice().chunk_crf);
    for (std::size_t i = 0; i < search->size() && i < report.rungs.size(); ++i) {
        RungReport& r = report.rungs[i];
        const CrfChoice& choice = search->rung(i).choice();
        r.crf = choice.crf;
        r.crf_search = crf_verdict_name(choice.verdict);
        r.crf_encodes = search->rung(i).trials();
        r.chunk_crf = choice.chunk_crf;
        r.crf_peak_capped = search->rung(i).peak_capped();
    }
}

namespace {

// The ladder file's first rung with its own CRF, if any.
const RungSpec* rung_with_crf(const JobOptions& options) {
    if (!options.ladder) return nullptr;
    for (const auto& rung : options.ladder->rungs)
        if (rung.crf >= 0) return &rung;
    return nullptr;
}

}  // namespace

void check_budget_request(const JobOptions& options) {
    if (options.rate_mode != RateMode::budget) return;
    if (options.shard && !options.shard->plan.budget)
        throw InputError("--rate-control budget decides each rung's quality from all of its chunks, which a shard "
                         "does not have: make the plan with ladder plan --rate-control budget (the plan searches "
                         "the whole source), or encode the whole source in one run");
    if (const RungSpec* rung = rung_with_crf(options))
        throw InputError(fmt::format("--rate-control budget decides each rung's CRF, but the ladder sets rung "
                                     "{}'s (\"crf\": {}): leave \"crf\" out of the ladder, or use "
                                     "--rate-control vbr to encode at the ladder's CRFs",
                                     rung->name, rung->crf));
    if (options.bit_allocation_given)
        throw InputError("--rate-control budget encodes each rung at one CRF and shares no rate among encoder "
                         "sessions, so --bit-allocation does not apply: leave --bit-allocation out, or use "
                         "--rate-control vbr to share each rung's rate among its sessions");
    if (options.decode == DecodeMode::nvdec)
        throw InputError("--rate-control budget decides each chunk's quality from its frames, which must be the same "
                         "on every machine: it decodes and scales on the CPU (NVDEC and scale_cuda make other frames "
                         "than swscale); leave --decode out, or use --rate-control vbr to decode on the GPU");
}

void check_budget_slots(const JobOptions& options, const std::vector<gpu::EncoderSlot>& slots) {
    if (options.rate_mode != RateMode::budget) return;
    for (const auto& slot : slots)
        if (!slot.traits().takes_crf)
            throw InputError(fmt::format("--rate-control budget encodes at a constant quality, which {} ({}) does not "
                                         "take: encode on the CPU with SVT-AV1 (--policy cpu --encoder libsvtav1), "
                                         "or use --rate-control vbr",
                                         slot.encoder, slot.label));
}

std::vector<ChunkCrfs> chunk_crfs_of(const std::optional<LadderCrfSearch>& search, const JobOptions& options) {
    if (search || !options.shard) return chunk_crfs_of(search);
    std::vector<ChunkCrfs> out;
    for (const auto& crfs : options.shard->plan.chunk_crf) {
        ChunkCrfs c;
        c.crf = crfs.at(0);
        for (std::size_t k = 1; k < crfs.size(); ++k)
            if (crfs[k] != c.crf) c.by_chunk[static_cast<int>(k)] = crfs[k];
        out.push_back(std::move(c));
    }
    return out;
}

RateMode chosen_rate_mode(const JobOptions& options, const DevicePlan& devices, std::string& why) {
    // (A shard's is its plan's: plan_job sets it before the run.)
    if (options.rate_mode != RateMode::automatic) return options.rate_mode;
    if (const RungSpec* rung = rung_with_crf(options)) {
        why = fmt::format("the ladder sets rung {}'s CRF", rung->name);
        return RateMode::vbr;
    }
    if (options.bit_allocation_given) {
        why = "--bit-allocation was given, which shares a rung's rate among VBR sessions";
        return RateMode::vbr;
    }
    if (!devices.decode_gpus.empty()) {
        why = fmt::format("the source is decoded on {}, whose frames are not the CPU's", devices.decode_label());
        return RateMode::vbr;
    }
    for (const auto& slot : devices.slots)
        if (!slot.traits().takes_crf) {
            why = fmt::format("{} ({}) keeps its own rate control", slot.encoder, slot.label);
            return RateMode::vbr;
        }
    return RateMode::budget;
}

JobOptions with_rate_mode_chosen(const JobOptions& asked, DevicePlan& devices) {
    JobOptions options = asked;
    std::string why;
    options.rate_mode = chosen_rate_mode(asked, devices, why);
    if (asked.rate_mode == RateMode::automatic && options.rate_mode == RateMode::vbr)
        devices.notes.emplace_back(NoteLevel::info,
                                   fmt::format("rate control: one-pass VBR, not budget, because {}: a rung can land "
                                               "outside ±5% of its target (README \"What a rung's bit rate means\")",
                                               why));
    if (options.rate_mode == RateMode::budget && options.session_chunks_given && options.session_chunks > 1)
        devices.notes.emplace_back(NoteLevel::warning,
                                   fmt::format("--session-chunks {} does not apply under budget rate control, which "
                                               "encodes every chunk in an encoder session of its own (a chunk may "
                                               "take another CRF than the one before it); it shapes vbr's sessions "
                                               "only",
                                               options.session_chunks));
    check_budget_slots(options, devices.slots);
    return options;
}

bool budget_searches(const JobOptions& options) {
    return options.rate_mode == RateMode::budget && !(options.shard && !options.shard->plan.chunk_crf.empty());
}

std::unique_ptr<DecodedFrames> keep_frames_for_passes(const JobOptions& options, const SourceInfo& source,
                                                      std::int64_t frames, MemoryBudget& memory) {
    if (!budget_searches(options) || frames <= 0) return nullptr;
    const bool display_larger =
        source.display_width * source.display_height > source.width * source.height;
    const int tight = av_image_get_buffer_size(source.pix_fmt, display_larger ? source.display_width : source.width,
                                               display_larger ? source.display_height : source.height, 1);
    if (tight <= 0) return nullptr;
    // Decoders and filters pad their buffers (aligned lines, a few rows
    // more); the frame count is the container's estimate.
    const auto limit = static_cast<std::uint64_t>(static_cast<double>(tight) * 1.25) *
                       static_cast<std::uint64_t>(frames + frames / 20 + 2);
    if (limit > memory.limit() / 2) return nullptr;
    auto reservation = memory.try_reserve(limit);
    if (!reservation) return nullptr;
    return std::make_unique<DecodedFrames>(std::move(*reservation), limit);
}

}  // namespace ladder::engine
