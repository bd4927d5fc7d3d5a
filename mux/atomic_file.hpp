#pragma once
// Files that appear whole or not at all: written under a hidden temporary
// name in the same directory, then renamed over the final name.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace ladder::mux {

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace ladder::mux
