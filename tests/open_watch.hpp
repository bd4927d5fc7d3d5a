#pragma once
// Sees whether anything opened or read a file in a folder (or the folder
// itself): how the tests show that ladder never touched a file outside a
// ladder. The tests run as root, and root reads a file whatever its mode, so
// permissions cannot show it; inotify's IN_OPEN does, for every process.
#include <sys/inotify.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ladder::test {

class OpenWatch {
public:
    // Watches folder and every folder below it as they are now.
    explicit OpenWatch(const std::filesystem::path& folder) : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
        // Listed before any watch starts: listing a folder opens it.
        std::vector<std::filesystem::path> folders{folder};
        for (const auto& e : std::filesystem::recursive_directory_iterator(folder))
            if (e.is_directory() && !e.is_symlink()) folders.push_back(e.path());
        for (const auto& f : folders) add(f);
    }
    ~OpenWatch() {
        if (fd_ >= 0) ::close(fd_);
    }
    OpenWatch(const OpenWatch&) = delete;
    OpenWatch& operator=(const OpenWatch&) = delete;

    bool ok() const { return fd_ >= 0 && all_added_; }

    // "folder/name" for each open or read since the watch began (a folder's
    // own path for the folder itself).
    std::vector<std::string> touched() {
        std::vector<std::string> out;
        alignas(inotify_event) char buffer[64 * 1024];
        for (;;) {
            const ssize_t n = ::read(fd_, buffer, sizeof buffer);
            if (n <= 0) return out;
            for (ssize_t pos = 0; pos < n;) {
                const auto* e = reinterpret_cast<const inotify_event*>(buffer + pos);
                std::string what = folders_[e->wd];
                if (e->len > 0) what += "/" + std::string(e->name);
                out.push_back(what);
                pos += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
            }
        }
    }

private:
    void add(const std::filesystem::path& folder) {
        const int wd = inotify_add_watch(fd_, folder.c_str(), IN_OPEN | IN_ACCESS);
        if (wd < 0) all_added_ = false;
        folders_[wd] = folder.string();
    }

    int fd_;
    bool all_added_ = true;
    std::map<int, std::string> folders_;
};

}  // namespace ladder::test
