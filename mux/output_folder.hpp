#pragma once
// A folder ladder writes into, held open by descriptor. Every file and
// folder below it is created, replaced, read or removed relative to that
// descriptor, one path element at a time, and never through a symbolic link
// (O_NOFOLLOW, unlinkat, renameat): a link planted inside OUTDIR cannot lead
// a write, a delete or a read outside it, even one swapped in while the run
// goes on (docs/hardening.md, "Where ladder writes").
//
// Files appear whole or not at all: written under a hidden temporary name of
// their own (process and call) in the same folder, then renamed over the
// final name; of two writers racing on one file (the shards of a plan on a
// shared volume), the last rename wins and the file is always one of theirs,
// whole. A rename replaces a link at the final name; it never follows it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "av/unique_fd.hpp"

namespace ladder::mux {

// A symbolic link (or another kind of file) where ladder must write a
// folder or a file of its own. An std::invalid_argument: bad input, exit 2.
class UnsafeOutputPath : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

enum class EntryKind { missing, file, folder, link, other };

class OutputFolder {
public:
    // The folder the user named (OUTDIR, the folder of --report): a link
    // there is the user's choice and is followed. create: made with its
    // parents when missing. Throws UnsafeOutputPath when it is not a folder,
    // std::system_error when it cannot be opened or created.
    static OutputFolder open_named(const std::filesystem::path& path, bool create);

    OutputFolder(const OutputFolder& other);
    OutputFolder& operator=(const OutputFolder& other);
    OutputFolder(OutputFolder&&) noexcept = default;
    OutputFolder& operator=(OutputFolder&&) noexcept = default;
    ~OutputFolder() = default;

    // The folder `relative` (one or more elements, no "..") below this one,
    // each element opened without following a link and, when create is
    // true, made when missing. UnsafeOutputPath names the element that is a
    // link or not a folder.
    OutputFolder folder(const std::filesystem::path& relative, bool create = true) const;
    // The same, without creating anything: nullopt when an element is missing.
    std::optional<OutputFolder> existing_folder(const std::filesystem::path& relative) const;

    // What `name` (one element) is, its link not followed.
    EntryKind entry(std::string_view name) const;
    // The names in this folder ("." and ".." left out).
    std::vector<std::string> names() const;

    void write_atomically(std::string_view name, std::span<const std::uint8_t> bytes) const;
    void write_atomically(std::string_view name, std::string_view text) const;
    // A regular file's bytes; nullopt when it is missing, a link or not a
    // regular file (a FIFO is never opened: it would block).
    std::optional<std::string> read(std::string_view name) const;
    // A new file, opened for reading and writing; a stale file or link of
    // that name is removed first, so nothing is written through a link.
    av::UniqueFd create_file(std::string_view name) const;
    // Renames within this folder (a link at `to` is replaced, not followed).
    void rename(std::string_view from, std::string_view to) const;
    // Removes a file or a link (never what it points to); false when missing.
    bool remove(std::string_view name) const;
    // Removes a folder and everything in it; links in it are removed, never
    // followed. Nothing happens when it is missing.
    void remove_tree(std::string_view name) const;
    // Proves that files can be created here (access() is not enough: root,
    // read-only mounts); throws std::system_error.
    void check_writable() const;

    int fd() const { return fd_.get(); }
    // For messages: the path this folder was reached by.
    const std::filesystem::path& path() const { return path_; }

private:
    OutputFolder(av::UniqueFd fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}
    std::optional<OutputFolder> step(const std::string& name, bool create) const;
    std::optional<OutputFolder> existing_or_made(const std::filesystem::path& relative, bool create) const;

    av::UniqueFd fd_;
    std::filesystem::path path_;
};

// Writes `path` (a file the user named, e.g. --report) whole or not at all:
// its folder as the user named it, the file itself never through a link.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace ladder::mux
