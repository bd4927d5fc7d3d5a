#include "engine/run/run_journal.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "engine/check/chunk_quality.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/run/run_encoders.hpp"
#include "engine/source/image_sequence.hpp"

namespace ladder::engine {

namespace {

// What must be the same for a journaled chunk to be reused by --resume.
std::string job_fingerprint(const JobOptions& o, const CheckedSource& source) {
    const SourceInfo& src = source.info;
    std::string f = fmt::format("source={}|{}|{}x{}|{}/{}|chunk={}|preset={}|check={}",
                                std::filesystem::absolute(o.input).string(), input_identity(o.input), src.width, src.height,
                                src.frame_rate.num, src.frame_rate.den, source.chunk_frames, o.preset,
                                static_cast<int>(o.splice_check));
    f += ladder_fingerprint(source.ladder);
    for (const auto& [encoder, count] : cpu_encoder_mix(o)) f += fmt::format("|{}", encoder);
    // Budget passes journal each chunk under its CRF, never under the
    // rung's name alone: a VBR run's journal is not theirs, nor theirs its.
    if (o.rate_mode == RateMode::budget) f += "|rate=budget";
    return f;
}

}  // namespace

ChunkJournal open_journal(const JobOptions& options, const CheckedSource& source, ProgressSink& progress) {
    ChunkJournal journal(options.outdir,
                         options.shard ? options.shard->plan.fingerprint() : job_fingerprint(options, source),
                         options.shard    ? JournalMode::shared
                         : options.resume ? JournalMode::resume
                                          : JournalMode::fresh);
    if (options.quality != QualityMetric::none) journal.keep_quality_of(quality_metric_name(options.quality));
    if (options.resume && !journal.resuming())
        progress.note(NoteLevel::warning,
                      fmt::format("--resume: no journal in {}; encoding everything", journal.dir().string()));
    return journal;
}

void note_resumed(const JobOptions& options, int resumed, const ChunkJournal& journal, ProgressSink& progress) {
    if (resumed == 0) return;
    if (options.shard)
        progress.note(NoteLevel::info, fmt::format("{} chunk(s) of this shard were already in {} and were kept",
                                                    resumed, journal.dir().string()));
    else
        progress.note(NoteLevel::info,
                      fmt::format("resumed {} chunk(s) from the journal instead of encoding them", resumed));
}

}  // namespace ladder::engine
