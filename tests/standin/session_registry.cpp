#include "tests/standin/session_registry.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "tests/standin/standin_settings.hpp"

namespace fs = std::filesystem;

namespace ladder::standin {

namespace {

constexpr int kOutOfMemory = 10;    // NV_ENC_ERR_OUT_OF_MEMORY: what GeForce drivers answer over the cap
constexpr int kDeviceNotExist = 5;  // NV_ENC_ERR_DEVICE_NOT_EXIST

fs::path state_dir() {
    fs::path dir = settings().state_dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    return dir;
}

// An exclusive flock on the state directory's lock file while it lives.
class DirectoryLock {
public:
    explicit DirectoryLock(const fs::path& dir)
        : fd_(open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
        if (fd_ >= 0) flock(fd_, LOCK_EX);
    }
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;
    ~DirectoryLock() {
        if (fd_ >= 0) close(fd_);  // closing releases the lock
    }

private:
    int fd_;
};

bool alive(int pid) { return kill(pid, 0) == 0 || errno == EPERM; }

struct Counts {
    int on_gpu = 0;
    int total = 0;
};

// Counts the sessions of live processes; forgets those of dead ones (a
// crashed encoder must not hold its session for ever).
Counts count_sessions(const fs::path& dir, int gpu) {
    Counts c;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        int g = -1, pid = 0;
        unsigned long n = 0;
        if (std::sscanf(entry.path().filename().c_str(), "session-%d-%d-%lu", &g, &pid, &n) != 3) continue;
        if (!alive(pid)) {
            fs::remove(entry.path(), ec);
            continue;
        }
        ++c.total;
        if (g == gpu) ++c.on_gpu;
    }
    return c;
}

std::atomic<unsigned long> next_session{0};

}  // namespace

SessionClaim SessionClaim::claim(int gpu) {
    const fs::path dir = state_dir();
    const DirectoryLock lock(dir);
    if (is_lost(gpu)) return SessionClaim(kDeviceNotExist, {});
    const Settings& s = settings();
    const Counts c = count_sessions(dir, gpu);
    if ((s.sessions_per_gpu > 0 && c.on_gpu >= s.sessions_per_gpu) ||
        (s.sessions_per_system > 0 && c.total >= s.sessions_per_system))
        return SessionClaim(kOutOfMemory, {});
    const fs::path file = dir / fmt::format("session-{}-{}-{}", gpu, getpid(), next_session++);
    const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
    return SessionClaim(0, file.string());
}

SessionClaim::SessionClaim(SessionClaim&& other) noexcept : status_(other.status_), file_(std::move(other.file_)) {
    other.file_.clear();
}

SessionClaim::~SessionClaim() {
    if (file_.empty()) return;
    std::error_code ec;
    fs::remove(file_, ec);
}

void mark_lost(int gpu) {
    const int fd = open((state_dir() / fmt::format("lost-{}", gpu)).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
}

bool is_lost(int gpu) {
    std::error_code ec;
    return fs::exists(state_dir() / fmt::format("lost-{}", gpu), ec);
}

}  // namespace ladder::standin
