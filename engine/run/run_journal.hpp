#pragma once
// A run's resume journal (engine/output/chunk_journal.hpp): what must be the
// same for a journaled chunk to be reused, the journal opened as the run
// asks (fresh, --resume, or a plan's shared one), and what the run says of
// the chunks it took back.
#include "engine/base/progress_sink.hpp"
#include "engine/output/chunk_journal.hpp"
#include "engine/run/job.hpp"
#include "engine/run/preflight.hpp"

namespace ladder::engine {

// A shard's journal is its plan's; else a fresh one, or the one --resume
// finds (a warning when there is none). With --quality, chunks carry their
// measurement.
ChunkJournal open_journal(const JobOptions& options, const CheckedSource& source, ProgressSink& progress);

// "resumed N chunk(s)" (a shard: "N chunk(s) ... were kept"), when N > 0.
void note_resumed(const JobOptions& options, int resumed, const ChunkJournal& journal, ProgressSink& progress);

}  // namespace ladder::engine
