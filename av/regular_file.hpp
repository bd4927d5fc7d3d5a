#pragma once
// Every file ladder reads as input is a regular file. A FIFO blocks open()
// until a writer comes and read() while the writer waits, with SIGINT and
// SIGTERM blocked in every thread (cli/signal_stop.hpp), so nothing could end
// it; a device or a socket may never end, or act when opened; and ladder
// seeks in its source and reads it more than once. So a path is checked with
// stat (which never opens, so never blocks) before it is opened, and opened
// with O_NONBLOCK and checked again with fstat: a file swapped for a FIFO
// between the two does not block either.
#include <stdexcept>
#include <string>

#include <sys/types.h>

namespace ladder::av {

// What a file of this mode is, for a message ("a FIFO (named pipe)", "a
// character device", "a socket", "a directory", ...); empty for a regular
// file.
std::string non_regular_kind(mode_t mode);

// A path that exists and is not a regular file. A std::invalid_argument, so
// that the command line reports it as unusable input (exit code 2) wherever
// it is found. what(): "<role> <path> is a FIFO (named pipe): ladder reads
// regular files only; write the stream to a file first".
class NotARegularFile : public std::invalid_argument {
public:
    NotARegularFile(const std::string& role, std::string path, std::string kind);
    const std::string& path() const noexcept { return path_; }
    const std::string& kind() const noexcept { return kind_; }

private:
    std::string path_;
    std::string kind_;
};

// Throws NotARegularFile when path exists and is not a regular file (links
// are followed). A path that is not there passes: opening it says so.
// role names the path in the message: "input", "--audio-file", ...
void require_regular_file(const std::string& path, const std::string& role);

// A regular file open for reading; the descriptor is closed with it.
class RegularFile {
public:
    // require_regular_file, then open(O_RDONLY | O_NONBLOCK | O_NOCTTY |
    // O_CLOEXEC) and fstat (O_NONBLOCK changes nothing for a regular file).
    // Throws NotARegularFile, or std::system_error when it cannot be opened
    // (its code: ENOENT, EACCES...).
    RegularFile(const std::string& path, const std::string& role);
    ~RegularFile();
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;

    int fd() const noexcept { return fd_; }
    // Everything in it (for small files: JSON). Throws std::system_error.
    std::string read_all() const;

private:
    int fd_ = -1;
};

// RegularFile(path, role).read_all().
std::string read_regular_file(const std::string& path, const std::string& role);

}  // namespace ladder::av
