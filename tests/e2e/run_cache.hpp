#pragma once
// What one test process made (a generated clip, an encoded ladder) reused by
// the next: ctest runs every test in its own process, and many tests start
// from the same clip or the same encode. The cache lives in the build tree;
// a key names everything the result depends on (the program's identity, its
// arguments, its input bytes), so a stale entry is never found.

#include <filesystem>
#include <string>
#include <vector>

namespace ladder::test {

// "size:mtime" of a file ("" when missing): a rebuilt or upgraded program
// gets a new identity.
std::string file_identity(const std::filesystem::path& file);

// file_identity of NAME as posix_spawnp finds it on PATH ("" when not found).
std::string program_identity(const std::string& name);

// "size:hash" of a file's bytes ("" when missing).
std::string content_identity(const std::filesystem::path& file);

// The cache entry for KIND ("clips", "encodes") and these key parts.
std::filesystem::path cache_entry(const std::string& kind, const std::vector<std::string>& key_parts);

// Copies a cached file or folder to DEST (never hands out the entry itself:
// tests damage their inputs and outputs on purpose). False when there is no
// entry or the copy failed.
bool restore_from_cache(const std::filesystem::path& entry, const std::filesystem::path& dest);

// Copies MADE (a file or a folder) into the cache under a name of this
// process, then renames it into place: a concurrent reader sees all of it or
// nothing. When another process published first, its entry stays.
void publish_to_cache(const std::filesystem::path& made, const std::filesystem::path& entry);

}  // namespace ladder::test
