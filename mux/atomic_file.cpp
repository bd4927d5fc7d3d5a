#include "mux/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <system_error>

#include <fmt/format.h>

#include "mux/single_file_writer.hpp"

namespace ladder::mux {

namespace {
// Unique per process and call: processes sharing a folder (shards of a plan
// on a shared volume) may write the same file at once, and each must
// rename a whole file of its own, never one the other is still writing.
std::filesystem::path unique_temporary_path_for(const std::filesystem::path& path) {
    static std::atomic<unsigned> counter{0};
    auto temp = temporary_path_for(path);
    temp += fmt::format(".{}.{}", ::getpid(), counter++);
    return temp;
}
}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
    const auto temp = unique_temporary_path_for(path);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    // std::system_error keeps errno, so the command line can tell a full disk
    // from other failures and say what to do.
    if (fd < 0) throw std::system_error(errno, std::generic_category(), fmt::format("cannot create {}", temp.string()));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int err = errno;
            ::close(fd);
            ::unlink(temp.c_str());
            throw std::system_error(err, std::generic_category(), fmt::format("cannot write {}", path.string()));
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        throw std::system_error(err, std::generic_category(), fmt::format("cannot write {}", path.string()));
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) {
        ::unlink(temp.c_str());
        throw std::system_error(ec, fmt::format("cannot rename {} into place", path.string()));
    }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
    write_file_atomically(path, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

}  // namespace ladder::mux
