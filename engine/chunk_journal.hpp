#pragma once
// The resume journal: every chunk a rung accepted is also written, whole and
// atomically, to OUTDIR/.ladder/<rung>/chunk_NNNNN.bin, next to
// OUTDIR/.ladder/job.json (what the run was: source, ladder, settings). A
// run started with --resume after a crash (even kill -9) takes the chunks
// found there instead of encoding them again; the journal is removed once
// the run has finished.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/chunk.hpp"

namespace ladder::engine {

class ChunkJournal {
public:
    // fingerprint: everything that must match for a chunk to be reused.
    // resume=false clears any earlier journal; resume=true keeps it when the
    // fingerprint matches and throws InputError when it does not.
    ChunkJournal(std::filesystem::path outdir, std::string fingerprint, bool resume);

    void record(const EncodedChunk& chunk, const std::string& rung_name);
    std::optional<EncodedChunk> load(int rung, const std::string& rung_name, int index) const;
    // Removes the journal (after a successful run).
    void remove();

    const std::filesystem::path& dir() const { return dir_; }
    bool resuming() const { return resuming_; }

private:
    std::filesystem::path chunk_path(const std::string& rung_name, int index) const;

    std::filesystem::path dir_;
    bool resuming_ = false;
};

}  // namespace ladder::engine
