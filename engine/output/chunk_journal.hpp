#pragma once
// The resume journal: every chunk a rung accepted is also written, whole and
// atomically, to OUTDIR/.ladder/<rung>/chunk_NNNNN.bin, next to
// OUTDIR/.ladder/job.json (what the run was: source, ladder, settings). A
// run started with --resume after a crash (even kill -9) takes the chunks
// found there instead of encoding them again; the journal is removed once
// the run has finished.
//
// The shards of a plan (`ladder encode --plan P --shard I/N`) share one
// journal in the plan's folder, written by many processes at once (each
// chunk file appears whole through its own temporary name), and never
// cleared: `ladder stitch` reads it. Every chunk file carries the job's
// fingerprint, so a chunk of another job is never taken for one of this.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/base/chunk.hpp"
#include "mux/output_folder.hpp"

namespace ladder::engine {

enum class JournalMode {
    fresh,   // clears any earlier journal
    resume,  // keeps one whose fingerprint matches, else InputError
    shared,  // a plan's: keeps (or starts) one whose fingerprint matches, else InputError; never cleared
    read,    // stitch: an existing one whose fingerprint matches, else InputError; nothing written
};

class ChunkJournal {
public:
    // fingerprint: everything that must match for a chunk to be reused.
    ChunkJournal(std::filesystem::path outdir, std::string fingerprint, JournalMode mode);

    void record(const EncodedChunk& chunk, const std::string& rung_name);
    // earlier, when given: set to whether another run (an earlier one, or
    // another shard's process) wrote the chunk, not this journal object.
    std::optional<EncodedChunk> load(int rung, const std::string& rung_name, int index,
                                     bool* earlier = nullptr) const;
    // Removes the journal (after a successful run).
    void remove();

    const std::filesystem::path& dir() const { return folder_.path(); }
    // Whether chunk `index` of rung `rung_name` has a file (readable or not).
    bool has_file(const std::string& rung_name, int index) const;
    bool resuming() const { return resuming_; }
    // Budget rate control: a run's later passes take the chunks its earlier
    // ones journaled, as a resumed run does.
    void take_own_chunks() { resuming_ = true; }
    // --quality: each chunk's measurement is journaled with it under the
    // metric's name ("psnr"...), and a chunk taken back has it only when
    // measured with this metric (budget's writing pass and a resumed run
    // take chunks whose frames they never scale).
    void keep_quality_of(std::string metric) { quality_metric_ = std::move(metric); }

private:
    static std::string chunk_name(int index);

    // OUTDIR/.ladder, held open: nothing in it is reached through a link.
    mux::OutputFolder folder_;
    std::string fingerprint_;
    std::string writer_;  // this journal object's own chunks carry it (process and start)
    std::string quality_metric_;  // empty: no --quality
    bool resuming_ = false;
};

}  // namespace ladder::engine
