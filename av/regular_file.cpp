#include "av/regular_file.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace ladder::av {

namespace {

std::string what_to_do(const std::string& kind) {
    if (kind == "a directory") return "name a file in it";
    return "write the stream to a file first";
}

}  // namespace

std::string non_regular_kind(mode_t mode) {
    if (S_ISREG(mode)) return "";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISDIR(mode)) return "a directory";
    return "not a file";
}

NotARegularFile::NotARegularFile(const std::string& role, std::string path, std::string kind)
    : std::invalid_argument(
          fmt::format("{} {} is {}: ladder reads regular files only; {}", role, path, kind, what_to_do(kind))),
      path_(std::move(path)),
      kind_(std::move(kind)) {}

void require_regular_file(const std::string& path, const std::string& role) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return;
    if (std::string kind = non_regular_kind(st.st_mode); !kind.empty()) throw NotARegularFile(role, path, std::move(kind));
}

RegularFile::RegularFile(const std::string& path, const std::string& role) {
    require_regular_file(path, role);
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), fmt::format("opening {}", path));
    // Again on what was opened: the path may name a FIFO by now.
    struct stat st {};
    const bool examined = ::fstat(fd_, &st) == 0;
    const int error = errno;
    std::string kind = examined ? non_regular_kind(st.st_mode) : "";
    if (examined && kind.empty()) return;
    ::close(fd_);  // the destructor does not run for a constructor that throws
    if (!examined) throw std::system_error(error, std::generic_category(), fmt::format("examining {}", path));
    throw NotARegularFile(role, path, std::move(kind));
}

RegularFile::~RegularFile() {
    if (fd_ >= 0) ::close(fd_);
}

std::string RegularFile::read_all() const {
    std::string text;
    char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd_, buffer, sizeof buffer);
        if (n == 0) return text;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::system_error(errno, std::generic_category(), "reading");
        text.append(buffer, static_cast<std::size_t>(n));
    }
}

std::string read_regular_file(const std::string& path, const std::string& role) {
    return RegularFile(path, role).read_all();
}

}  // namespace ladder::av
