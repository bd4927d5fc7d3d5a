#pragma once
// Test-side readers for ladder's HLS output, written independently of the
// product's own playlist code: plain line parsing, file concatenation and
// libavformat / ffprobe for the media.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ladder::test {

struct PlaylistLines {
    std::vector<std::string> tags;  // every line starting with #EXT
    std::vector<double> extinf;
    std::vector<std::string> uris;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> byteranges;  // length, offset
    int target_duration = -1;
    std::map<std::string, std::string> stream_inf_by_uri;  // master: variant URI -> attribute text

    bool has(const std::string& tag) const;
};

PlaylistLines read_playlist(const std::filesystem::path& file);

// Value of NAME=... in an attribute list (quotes removed).
std::string attribute(const std::string& attrs, const std::string& name);

// Writes the files one after the other into out.
void concat_files(const std::vector<std::filesystem::path>& parts, const std::filesystem::path& out);

// The byte range [0, length) of file, appended to init, into out.
void init_plus_prefix(const std::filesystem::path& init, const std::filesystem::path& file, std::uint64_t length,
                      const std::filesystem::path& out);

std::string read_text(const std::filesystem::path& file);

}  // namespace ladder::test
