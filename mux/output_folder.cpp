#include "mux/output_folder.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <system_error>

#include <fmt/format.h>

namespace ladder::mux {

namespace {

std::system_error os_error(int err, const std::string& what) {
    // std::system_error keeps errno, so the command line can tell a full
    // disk from other failures and say what to do.
    return std::system_error(err, std::generic_category(), what);
}

// One path element: a name ladder chose, never a way up or across.
const std::string& checked_name(const std::string& name) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos)
        throw std::logic_error(fmt::format("'{}' is not one element of a path", name));
    return name;
}

EntryKind kind_of(const struct stat& st) {
    if (S_ISLNK(st.st_mode)) return EntryKind::link;
    if (S_ISDIR(st.st_mode)) return EntryKind::folder;
    if (S_ISREG(st.st_mode)) return EntryKind::file;
    return EntryKind::other;
}

EntryKind entry_at(int dir, const std::string& name) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return EntryKind::missing;
    return kind_of(st);
}

// Unique per process and call: processes sharing a folder (shards of a plan
// on a shared volume) may write the same file at once, and each must rename
// a whole file of its own, never one the other is still writing.
std::string unique_temporary_name(std::string_view name) {
    static std::atomic<unsigned> counter{0};
    return fmt::format(".{}.part.{}.{}", name, ::getpid(), counter++);
}

void write_all(int fd, std::span<const std::uint8_t> bytes, const std::filesystem::path& path) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw os_error(n < 0 ? errno : EIO, fmt::format("cannot write {}", path.string()));
        done += static_cast<std::size_t>(n);
    }
}

struct DirCloser {
    void operator()(DIR* d) const { ::closedir(d); }
};

}  // namespace

OutputFolder OutputFolder::open_named(const std::filesystem::path& path, bool create) {
    const std::filesystem::path named = path.empty() ? std::filesystem::path(".") : path;
    if (create) {
        std::error_code ec;
        std::filesystem::create_directories(named, ec);
        if (ec && !std::filesystem::is_directory(named))
            throw os_error(ec.value(), fmt::format("cannot create the folder {}", named.string()));
    }
    av::UniqueFd fd(::open(named.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) {
        if (errno == ENOTDIR)
            throw UnsafeOutputPath(fmt::format("{} exists and is not a folder: choose another output folder",
                                               named.string()));
        throw os_error(errno, fmt::format("cannot open the folder {}", named.string()));
    }
    return OutputFolder(std::move(fd), named);
}

OutputFolder::OutputFolder(const OutputFolder& other)
    : fd_(::fcntl(other.fd_.get(), F_DUPFD_CLOEXEC, 0)), path_(other.path_) {
    if (!fd_) throw os_error(errno, fmt::format("cannot hold the folder {} open", path_.string()));
}

OutputFolder& OutputFolder::operator=(const OutputFolder& other) {
    if (this != &other) *this = OutputFolder(other);
    return *this;
}

std::optional<OutputFolder> OutputFolder::step(const std::string& name, bool create) const {
    checked_name(name);
    const auto path = path_ / name;
    for (int attempt = 0; attempt < 2; ++attempt) {
        av::UniqueFd fd(::openat(fd_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (fd) return OutputFolder(std::move(fd), path);
        const int err = errno;
        switch (entry_at(fd_.get(), name)) {
            case EntryKind::link:
                throw UnsafeOutputPath(fmt::format(
                    "{} is a symbolic link: ladder never writes through a link inside its output folder; remove "
                    "it or choose another output folder",
                    path.string()));
            case EntryKind::file:
            case EntryKind::other:
                throw UnsafeOutputPath(fmt::format(
                    "{} is in the way: ladder needs a folder there; move it or choose another output folder",
                    path.string()));
            case EntryKind::folder:
                // Missing when opened, there now: another writer made it
                // meanwhile (two workers journal a rung's first chunks at
                // once). Open it again.
                if (err == ENOENT) break;
                throw os_error(err, fmt::format("cannot open the folder {}", path.string()));
            case EntryKind::missing:
                if (!create) return std::nullopt;
                if (::mkdirat(fd_.get(), name.c_str(), 0755) != 0 && errno != EEXIST)
                    throw os_error(errno, fmt::format("cannot create the folder {}", path.string()));
                break;  // open what is there now (another writer may have made it first)
        }
    }
    throw os_error(ENOENT, fmt::format("cannot open the folder {}", path.string()));
}

OutputFolder OutputFolder::folder(const std::filesystem::path& relative, bool create) const {
    auto found = existing_or_made(relative, create);
    if (!found) throw os_error(ENOENT, fmt::format("no folder {}", (path_ / relative).string()));
    return std::move(*found);
}

std::optional<OutputFolder> OutputFolder::existing_folder(const std::filesystem::path& relative) const {
    return existing_or_made(relative, false);
}

std::optional<OutputFolder> OutputFolder::existing_or_made(const std::filesystem::path& relative, bool create) const {
    std::optional<OutputFolder> at = *this;
    for (const auto& element : relative) {
        if (element.empty() || element == ".") continue;
        at = at->step(element.string(), create);
        if (!at) return std::nullopt;
    }
    return at;
}

EntryKind OutputFolder::entry(std::string_view name) const { return entry_at(fd_.get(), checked_name(std::string(name))); }

std::vector<std::string> OutputFolder::names() const {
    // A description of its own: readdir moves the offset, which dup() shares.
    const int fd = ::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw os_error(errno, fmt::format("cannot list {}", path_.string()));
    std::unique_ptr<DIR, DirCloser> dir(::fdopendir(fd));
    if (!dir) {
        const int err = errno;
        ::close(fd);
        throw os_error(err, fmt::format("cannot list {}", path_.string()));
    }
    std::vector<std::string> out;
    while (const dirent* e = ::readdir(dir.get())) {
        const std::string_view n = e->d_name;
        if (n != "." && n != "..") out.emplace_back(n);
    }
    return out;
}

void OutputFolder::write_atomically(std::string_view name, std::span<const std::uint8_t> bytes) const {
    const std::string final_name = checked_name(std::string(name));
    const std::string temp = unique_temporary_name(name);
    const auto path = path_ / final_name;
    av::UniqueFd fd(::openat(fd_.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd) throw os_error(errno, fmt::format("cannot create {}", (path_ / temp).string()));
    try {
        write_all(fd.get(), bytes, path);
        if (::close(fd.release()) != 0) throw os_error(errno, fmt::format("cannot write {}", path.string()));
        if (::renameat(fd_.get(), temp.c_str(), fd_.get(), final_name.c_str()) != 0)
            throw os_error(errno, fmt::format("cannot rename {} into place", path.string()));
    } catch (...) {
        ::unlinkat(fd_.get(), temp.c_str(), 0);
        throw;
    }
}

void OutputFolder::write_atomically(std::string_view name, std::string_view text) const {
    write_atomically(name, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

std::optional<std::string> OutputFolder::read(std::string_view name) const {
    const std::string n = checked_name(std::string(name));
    av::UniqueFd fd(::openat(fd_.get(), n.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
    if (!fd) return std::nullopt;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    std::string out;
    char buffer[64 * 1024];
    for (;;) {
        const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
        if (got == 0) return out;
        if (got < 0) {
            if (errno == EINTR) continue;
            throw os_error(errno, fmt::format("cannot read {}", (path_ / n).string()));
        }
        out.append(buffer, static_cast<std::size_t>(got));
    }
}

av::UniqueFd OutputFolder::create_file(std::string_view name) const {
    const std::string n = checked_name(std::string(name));
    if (::unlinkat(fd_.get(), n.c_str(), 0) != 0 && errno != ENOENT)
        throw os_error(errno, fmt::format("cannot remove the stale {}", (path_ / n).string()));
    av::UniqueFd fd(::openat(fd_.get(), n.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd) throw os_error(errno, fmt::format("cannot create {}", (path_ / n).string()));
    return fd;
}

void OutputFolder::rename(std::string_view from, std::string_view to) const {
    const std::string f = checked_name(std::string(from));
    const std::string t = checked_name(std::string(to));
    if (::renameat(fd_.get(), f.c_str(), fd_.get(), t.c_str()) != 0)
        throw os_error(errno, fmt::format("cannot rename {} to {}", (path_ / f).string(), (path_ / t).string()));
}

bool OutputFolder::remove(std::string_view name) const {
    const std::string n = checked_name(std::string(name));
    if (::unlinkat(fd_.get(), n.c_str(), 0) == 0) return true;
    if (errno == ENOENT) return false;
    throw os_error(errno, fmt::format("cannot remove {}", (path_ / n).string()));
}

void OutputFolder::remove_tree(std::string_view name) const {
    const std::string n = checked_name(std::string(name));
    switch (entry_at(fd_.get(), n)) {
        case EntryKind::missing: return;
        case EntryKind::folder: {
            const auto inside = step(n, false);
            if (inside)
                for (const auto& child : inside->names()) inside->remove_tree(child);
            if (::unlinkat(fd_.get(), n.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
                throw os_error(errno, fmt::format("cannot remove {}", (path_ / n).string()));
            return;
        }
        default: remove(n); return;
    }
}

void OutputFolder::check_writable() const {
    const std::string probe = unique_temporary_name("ladder-write-test");
    av::UniqueFd fd(::openat(fd_.get(), probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd) throw os_error(errno, fmt::format("the folder {} is not writable", path_.string()));
    ::unlinkat(fd_.get(), probe.c_str(), 0);
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
    OutputFolder::open_named(path.parent_path(), false).write_atomically(path.filename().string(), bytes);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
    OutputFolder::open_named(path.parent_path(), false).write_atomically(path.filename().string(), text);
}

}  // namespace ladder::mux
