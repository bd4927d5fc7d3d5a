#include "run_cache.hpp"

#include "hls_tools.hpp"

#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <sstream>

namespace ladder::test {

namespace fs = std::filesystem;

std::string file_identity(const fs::path& file) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec) return {};
    const auto mtime = fs::last_write_time(file, ec).time_since_epoch().count();
    if (ec) return {};
    return std::to_string(size) + ":" + std::to_string(mtime);
}

std::string program_identity(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
        std::error_code ec;
        if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate, ec)) return file_identity(candidate);
    }
    return {};
}

std::string content_identity(const fs::path& file) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return {};
    const std::string content = read_text(file);
    return std::to_string(content.size()) + ":" + std::to_string(std::hash<std::string>{}(content));
}

fs::path cache_entry(const std::string& kind, const std::vector<std::string>& key_parts) {
    std::string joined;
    for (const std::string& part : key_parts) joined += part + '\0';
    std::ostringstream hex;
    hex << std::hex << std::hash<std::string>{}(joined);
    return fs::path(LADDER_E2E_CACHE_DIR) / kind / hex.str();
}

bool restore_from_cache(const fs::path& entry, const fs::path& dest) {
    std::error_code ec;
    if (!fs::exists(entry, ec)) return false;
    if (fs::is_directory(entry, ec)) {
        fs::create_directories(dest, ec);
        fs::copy(entry, dest, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    } else {
        fs::copy_file(entry, dest, fs::copy_options::overwrite_existing, ec);
    }
    return !ec;
}

void publish_to_cache(const fs::path& made, const fs::path& entry) {
    std::error_code ec;
    fs::create_directories(entry.parent_path(), ec);
    const fs::path part = entry.string() + ".part." + std::to_string(::getpid());
    fs::remove_all(part, ec);
    if (fs::is_directory(made, ec))
        fs::copy(made, part, fs::copy_options::recursive, ec);
    else
        fs::copy_file(made, part, ec);
    // rename() does not replace a folder another process published already.
    if (!ec && !fs::exists(entry)) fs::rename(part, entry, ec);
    fs::remove_all(part, ec);
}

}  // namespace ladder::test
