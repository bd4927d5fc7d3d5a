#pragma once
// Where a URI read from a playlist or manifest may lead: only to a file
// inside the ladder's folder. `ladder validate` runs on ladders other people
// made, so a URI is data, never a way to make ladder open /etc/shadow, a
// device, or a server (docs/hardening.md "Path safety").
//
// A URI is refused when it is empty, holds a control byte, has a scheme
// (`http:`, `file:`, `//host`), is absolute, climbs out with `..`, or passes
// through a symbolic link whose target is outside. Percent escapes are not
// decoded: `%2e%2e` is a file name, which stays inside. Files are then opened
// with openat2(RESOLVE_BENEATH) below the folder, so a link swapped in after
// the check cannot lead out either.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ladder::engine {

enum class UriRefusal { empty, control_byte, url, absolute, climbs_out, link_leads_out };

// The refusal a URI gets from its text alone (empty, a control byte, a URL,
// an absolute path); nullopt for a relative path, which only the folder it
// is resolved in can refuse.
std::optional<UriRefusal> uri_refusal_by_syntax(std::string_view uri);

// The words after the URI in a problem line: "is outside the ladder: not
// read (an absolute path)"; note goes inside the parenthesis, after the reason.
std::string describe(UriRefusal refusal, std::string_view note = {});

// A file a URI names, inside the ladder.
struct LadderFile {
    std::filesystem::path path;        // absolute, lexically normal: as the playlists name it
    std::filesystem::path below_root;  // the same, relative to the ladder's folder
};

struct UriResolution {
    std::optional<LadderFile> file;  // set when the URI stays inside
    UriRefusal refusal = UriRefusal::empty;
};

enum class ReadStatus { ok, missing, not_a_regular_file, outside };

// Which file a name leads to: two names (a second spelling, a symbolic or
// hard link) of one file have the same id.
struct FileId {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    auto operator<=>(const FileId&) const = default;
};

struct FileBytes {
    ReadStatus status = ReadStatus::missing;
    std::vector<std::uint8_t> bytes;  // when ok
};

class LadderFolder {
public:
    explicit LadderFolder(const std::filesystem::path& folder);

    // Absolute and lexically normal.
    const std::filesystem::path& path() const { return lexical_root_; }

    // uri as written in a playlist whose folder is base (a folder inside the
    // ladder, as LadderFile::path names it). Touches nothing outside: only
    // the metadata of the folders on the way (no file is opened).
    UriResolution resolve(const std::filesystem::path& base, std::string_view uri) const;

    // The bytes of a regular file inside the folder; a FIFO or a device is
    // never opened for reading (one would block, the other has side effects).
    FileBytes read(const LadderFile& file) const;

    // The file a resolved name leads to (metadata only, nothing is opened);
    // nullopt when there is none.
    std::optional<FileId> identity(const LadderFile& file) const;

    // How many names of files (anything but a folder) the folder and its
    // subfolders hold, symbolic links to folders not followed: the most
    // segments a playlist or timeline can name without naming one twice, as
    // the files on disk bound what validate believes a count read from a
    // file. Counted once, when first asked.
    std::uint64_t file_count() const;

private:
    std::filesystem::path lexical_root_;
    std::filesystem::path real_root_;  // symbolic links resolved
    mutable std::optional<std::uint64_t> file_count_;
};

// True when path is root or below it, compared by path elements
// ("/out" does not contain "/outside").
bool path_is_within(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace ladder::engine
