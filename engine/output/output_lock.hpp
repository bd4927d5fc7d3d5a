#pragma once
// One run per output folder. A run holds a kernel lock (flock) on
// OUTDIR/.ladder.lock from before it writes anything until its report is
// written; the kernel drops it when the process dies, so `kill -9` never
// leaves a stale lock. `encode`, `plan` and `stitch` take the folder
// whole; the shards of one plan share it (a shared lock): their chunk
// files are written whole under names of their own, so shards, and two
// attempts at one shard (a requeue racing the attempt it replaces), may
// write at once, while an encode, a stitch or a new plan there is refused,
// and the other way round. A refused run is an InputError (exit 2) naming
// the holders' pids (from /proc/locks; the file also says the pid of a
// whole-folder holder). A run that held the lock alone removes the file
// when it ends, and removes OUTDIR again when it made the folder and left
// nothing in it.
#include <filesystem>
#include <string>
#include <vector>

#include "av/unique_fd.hpp"
#include "mux/output_folder.hpp"

namespace ladder::engine {

class OutputLock {
public:
    // The folder for this run alone (made when missing).
    static OutputLock whole(const std::filesystem::path& outdir);
    // A shard's: shared with the plan's other shards.
    static OutputLock shared(const std::filesystem::path& outdir);

    OutputLock(OutputLock&&) noexcept = default;
    OutputLock& operator=(OutputLock&&) noexcept = delete;
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;
    ~OutputLock();

    const mux::OutputFolder& folder() const { return folder_; }
    // Whether `folder` is the folder this lock holds (under any name).
    bool holds(const std::filesystem::path& folder) const;

private:
    struct Held {
        std::string name;
        av::UniqueFd fd;
        bool exclusive = false;
    };
    OutputLock(mux::OutputFolder folder, std::vector<std::filesystem::path> made) : folder_(std::move(folder)), made_(std::move(made)) {}
    void take(const std::string& name, bool exclusive, const std::string& holder_words);

    mux::OutputFolder folder_;
    std::vector<std::filesystem::path> made_;  // folders this run created, innermost last
    std::vector<Held> held_;
};

}  // namespace ladder::engine
