#pragma once
// Files that appear whole or not at all: written under a hidden temporary
// name of their own (process and call) in the same directory, then renamed
// over the final name; of two writers racing on one file, the last rename
// wins and the file is always one of theirs, whole.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace ladder::mux {

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace ladder::mux
