#include "engine/check/ladder_path.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "av/unique_fd.hpp"

namespace ladder::engine {

namespace {

namespace fs = std::filesystem;

bool is_control_byte(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
}

// RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":". A relative
// path whose first segment holds a colon must be written "./a:b", so "a:b"
// is a URL to a player too. "//host/x" is a network-path reference.
bool names_a_url(std::string_view uri) {
    if (uri.starts_with("//")) return true;
    const std::size_t colon = uri.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    const std::string_view scheme = uri.substr(0, colon);
    const auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    const auto is_scheme_char = [&](char c) {
        return is_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    };
    return is_alpha(scheme.front()) && std::all_of(scheme.begin(), scheme.end(), is_scheme_char);
}

fs::path absolute_normal(const fs::path& p) {
    std::error_code ec;
    fs::path a = fs::absolute(p, ec);
    return (ec ? p : a).lexically_normal();
}

bool climbs_out(const fs::path& below_root) {
    return below_root.empty() || *below_root.begin() == "..";
}

// Opens below root with the kernel refusing any step out of it (EXDEV),
// symbolic links included. -1 with errno; ENOSYS where the kernel or a
// seccomp filter lacks openat2.
int open_beneath(const fs::path& root, const fs::path& below_root) {
    const av::UniqueFd dir(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir) return -1;
    open_how how{};
    how.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    const long fd = ::syscall(SYS_openat2, dir.get(), below_root.c_str(), &how, sizeof how);
    // Docker's older seccomp profiles answer EPERM for system calls they do not know.
    if (fd < 0 && errno == EPERM) errno = ENOSYS;
    return static_cast<int>(fd);
}

// Without openat2: the path checked again, then opened without following a
// link in its last element. A link swapped into a folder on the way between
// the two steps is the one case this cannot exclude.
int open_checked(const fs::path& real_root, const fs::path& path) {
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(path, ec);
    if (ec) return -1;
    if (!path_is_within(real, real_root)) {
        errno = EXDEV;
        return -1;
    }
    return ::open(real.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
}

ReadStatus status_of_open_error(int error) {
    if (error == EXDEV) return ReadStatus::outside;
    if (error == ELOOP) return ReadStatus::not_a_regular_file;  // O_NOFOLLOW met a link
    return ReadStatus::missing;
}

// size_hint: the size fstat gave, reserved up to a cap (a sparse file can
// claim terabytes it does not hold; a file can grow while it is read).
bool read_all(int fd, std::vector<std::uint8_t>& out, std::size_t size_hint) {
    constexpr std::size_t kMostReserved = std::size_t{256} << 20;
    out.reserve(std::min(size_hint, kMostReserved));
    std::uint8_t buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) return true;
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        out.insert(out.end(), buffer, buffer + n);
    }
}

}  // namespace

std::optional<UriRefusal> uri_refusal_by_syntax(std::string_view uri) {
    if (uri.empty()) return UriRefusal::empty;
    // A NUL would cut the path the kernel sees short of the one checked here.
    if (std::any_of(uri.begin(), uri.end(), is_control_byte)) return UriRefusal::control_byte;
    if (names_a_url(uri)) return UriRefusal::url;
    if (uri.front() == '/') return UriRefusal::absolute;
    return std::nullopt;
}

std::string describe(UriRefusal refusal, std::string_view note) {
    const auto outside = [&](std::string_view reason) {
        return fmt::format("is outside the ladder: not read ({}{}{})", reason, note.empty() ? "" : "; ", note);
    };
    switch (refusal) {
        case UriRefusal::empty: return "is empty: not read";
        case UriRefusal::control_byte: return "holds a control byte: not read";
        case UriRefusal::url: return outside("a URL");
        case UriRefusal::absolute: return outside("an absolute path");
        case UriRefusal::climbs_out: return outside("its .. leaves the ladder's folder");
        case UriRefusal::link_leads_out: return outside("a symbolic link on its way leads out of the ladder's folder");
    }
    return outside("?");
}

bool path_is_within(const fs::path& path, const fs::path& root) {
    return std::mismatch(root.begin(), root.end(), path.begin(), path.end()).first == root.end();
}

LadderFolder::LadderFolder(const fs::path& folder) : lexical_root_(absolute_normal(folder)) {
    std::error_code ec;
    real_root_ = fs::weakly_canonical(lexical_root_, ec);
    if (ec) real_root_ = lexical_root_;
    // weakly_canonical keeps a trailing separator ("out/"): an empty last element.
    if (!lexical_root_.has_filename()) lexical_root_ = lexical_root_.parent_path();
    if (!real_root_.has_filename()) real_root_ = real_root_.parent_path();
}

UriResolution LadderFolder::resolve(const fs::path& base, std::string_view uri) const {
    if (auto refusal = uri_refusal_by_syntax(uri)) return {std::nullopt, *refusal};
    const fs::path candidate = (base / fs::path(uri)).lexically_normal();
    const fs::path below_root = candidate.lexically_relative(lexical_root_);
    if (climbs_out(below_root)) return {std::nullopt, UriRefusal::climbs_out};
    // Where the kernel would really go: every link on the way followed
    // (lstat and readlink only; a missing tail is kept as written).
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(candidate, ec);
    if (ec || !path_is_within(real, real_root_)) return {std::nullopt, UriRefusal::link_leads_out};
    return {LadderFile{candidate, below_root}, UriRefusal::empty};
}

FileBytes LadderFolder::read(const LadderFile& file) const {
    // stat, not open: a FIFO would block an open for reading, a device
    // could act on it.
    std::error_code ec;
    const fs::file_status st = fs::status(real_root_ / file.below_root, ec);
    if (!fs::exists(st)) return {ReadStatus::missing, {}};
    if (!fs::is_regular_file(st)) return {ReadStatus::not_a_regular_file, {}};

    int fd = open_beneath(real_root_, file.below_root);
    if (fd < 0 && errno == ENOSYS) fd = open_checked(real_root_, real_root_ / file.below_root);
    if (fd < 0) return {status_of_open_error(errno), {}};
    const av::UniqueFd owned(fd);
    // Checked again on what was opened: the file may have been replaced.
    struct stat opened {};
    if (::fstat(owned.get(), &opened) != 0 || !S_ISREG(opened.st_mode)) return {ReadStatus::not_a_regular_file, {}};
    FileBytes out{ReadStatus::ok, {}};
    if (!read_all(owned.get(), out.bytes, static_cast<std::size_t>(opened.st_size))) return {ReadStatus::missing, {}};
    return out;
}

std::optional<FileId> LadderFolder::identity(const LadderFile& file) const {
    struct stat st {};
    if (::stat((real_root_ / file.below_root).c_str(), &st) != 0) return std::nullopt;
    return FileId{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

std::uint64_t LadderFolder::file_count() const {
    if (file_count_) return *file_count_;
    std::uint64_t count = 0;
    std::error_code ec;
    // A folder that cannot be listed counts for nothing: the bound only gets tighter.
    for (fs::recursive_directory_iterator it(real_root_, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        std::error_code unreadable;  // a name that vanished still counts
        if (it->symlink_status(unreadable).type() != fs::file_type::directory) ++count;
    }
    file_count_ = count;
    return count;
}

}  // namespace ladder::engine
