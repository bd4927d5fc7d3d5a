#include "engine/output/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <cstring>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/base/errors.hpp"

namespace ladder::engine {

namespace {

namespace fs = std::filesystem;

constexpr const char* kWholeLock = ".ladder.lock";

// mkdir -p that remembers what it made (outermost first), so a run that
// wrote nothing can leave the file system as it found it.
std::vector<fs::path> make_folders(const fs::path& outdir) {
    std::vector<fs::path> missing;
    std::error_code ec;
    for (fs::path p = fs::absolute(outdir, ec).lexically_normal(); !p.empty() && p != p.parent_path();
         p = p.parent_path()) {
        if (fs::exists(fs::symlink_status(p, ec))) break;
        missing.insert(missing.begin(), p);
    }
    std::vector<fs::path> made;
    for (const auto& p : missing) {
        if (::mkdir(p.c_str(), 0755) == 0) {
            made.push_back(p);
        } else if (errno != EEXIST) {
            throw InputError(fmt::format("cannot create the output folder {}: {}: choose another -o or fix "
                                         "permissions",
                                         outdir.string(), std::strerror(errno)));
        }
    }
    return made;
}

mux::OutputFolder open_folder(const fs::path& outdir) {
    try {
        return mux::OutputFolder::open_named(outdir, false);
    } catch (const mux::UnsafeOutputPath&) {
        throw InputError(fmt::format("output {} exists and is not a directory: choose another -o", outdir.string()));
    } catch (const std::system_error& e) {
        throw InputError(fmt::format("cannot open the output folder {}: {}: choose another -o or fix permissions",
                                     outdir.string(), e.code().message()));
    }
}

bool same_file(int fd, int dir, const std::string& name) {
    struct stat held {}, there {};
    return ::fstat(fd, &held) == 0 && ::fstatat(dir, name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 &&
           held.st_dev == there.st_dev && held.st_ino == there.st_ino;
}

// The processes that hold a flock on the file `name` in `dir`, as the
// kernel lists them (/proc/locks, pids as this process sees them).
std::vector<std::string> lock_holders(int dir, const std::string& name) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return {};
    const std::string file = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev), st.st_ino);
    std::ifstream locks("/proc/locks");
    std::vector<std::string> pids;
    for (std::string line; std::getline(locks, line);) {
        std::istringstream words(line);
        std::string id, kind, mode, access, pid, where;
        if (!(words >> id >> kind) || kind == "->" || kind != "FLOCK") continue;
        if (!(words >> mode >> access >> pid >> where) || where != file) continue;
        if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
    }
    return pids;
}

// What a refused run says about the holder: "pid 4242", "pids 41, 42", or
// the pid the file says when /proc/locks cannot tell.
std::string describe_holders(int dir, const std::string& name) {
    const auto pids = lock_holders(dir, name);
    if (!pids.empty()) return fmt::format("{} {}", pids.size() == 1 ? "pid" : "pids", fmt::join(pids, ", "));
    av::UniqueFd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    char text[32] = {};
    const ssize_t n = fd ? ::pread(fd.get(), text, sizeof text - 1, 0) : 0;
    std::string pid(text, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    return pid.empty() ? "pid unknown" : "pid " + pid;
}

// Only for the message of a refused run: a failure here changes nothing.
void write_pid(int fd) {
    const std::string pid = fmt::format("{}\n", ::getpid());
    if (::ftruncate(fd, 0) != 0) return;
    const ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
    static_cast<void>(written);
}

}  // namespace

OutputLock OutputLock::whole(const fs::path& outdir) {
    auto made = make_folders(outdir);
    OutputLock lock(open_folder(outdir), std::move(made));
    lock.take(kWholeLock, true, "another ladder run");
    return lock;
}

OutputLock OutputLock::shared(const fs::path& outdir) {
    auto made = make_folders(outdir);
    OutputLock lock(open_folder(outdir), std::move(made));
    lock.take(kWholeLock, false, "another ladder run");
    return lock;
}

void OutputLock::take(const std::string& name, bool exclusive, const std::string& holder_words) {
    for (int attempt = 0; attempt < 8; ++attempt) {
        av::UniqueFd fd(::openat(folder_.fd(), name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644));
        if (!fd) {
            if (errno == ELOOP)
                throw InputError(fmt::format("{} is a symbolic link: ladder never writes through a link inside its "
                                             "output folder; remove it or choose another -o",
                                             (folder_.path() / name).string()));
            throw InputError(fmt::format("cannot create the lock file {}: {}: choose another -o or fix permissions",
                                         (folder_.path() / name).string(), std::strerror(errno)));
        }
        if (::flock(fd.get(), (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK)
                throw InputError(fmt::format("cannot lock {}: {}", (folder_.path() / name).string(), std::strerror(errno)));
            throw InputError(fmt::format("{} is in use by {} ({}): wait for it to end or choose another -o",
                                         folder_.path().string(), holder_words, describe_holders(folder_.fd(), name)));
        }
        // Its last holder may have removed the file between our open and our
        // lock: then the lock is on a file nobody else will ever open.
        if (!same_file(fd.get(), folder_.fd(), name)) continue;
        if (exclusive) write_pid(fd.get());
        held_.push_back(Held{name, std::move(fd), exclusive});
        return;
    }
    throw InputError(fmt::format("cannot lock {}: its lock file keeps changing", folder_.path().string()));
}

bool OutputLock::holds(const fs::path& folder) const {
    struct stat mine {}, other {};
    return ::fstat(folder_.fd(), &mine) == 0 && ::stat(folder.c_str(), &other) == 0 && mine.st_dev == other.st_dev &&
           mine.st_ino == other.st_ino;
}

OutputLock::~OutputLock() {
    // Removed while still held, so no other run can hold a lock on a file
    // that is gone (take() checks the file it locked is still there).
    for (auto it = held_.rbegin(); it != held_.rend(); ++it)
        if (it->exclusive) ::unlinkat(folder_.fd(), it->name.c_str(), 0);
    held_.clear();
    // A folder this run made and left empty (a refused input, say) goes again.
    for (auto it = made_.rbegin(); it != made_.rend(); ++it)
        if (::rmdir(it->c_str()) != 0) break;
}

}  // namespace ladder::engine
