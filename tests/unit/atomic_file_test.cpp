// Files written with write_file_atomically appear whole or not at all, also
// when several writers (the shards of a plan, on a shared folder) write the
// same file at once: a reader only ever sees one writer's whole content.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mux/atomic_file.hpp"

namespace ladder {
namespace {

namespace fs = std::filesystem;

TEST(AtomicFile, WritersRacingOnOneFileNeverMixTheirContents) {
    const fs::path dir = fs::temp_directory_path() / ("ladder-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path file = dir / "chunk_00000.bin";
    constexpr int kWriters = 4;
    constexpr int kWrites = 60;
    constexpr std::size_t kBytes = 256 * 1024;  // large enough for writes to interleave
    std::atomic<bool> done{false};
    std::atomic<int> reads{0}, torn{0}, failed_writes{0};
    std::thread reader([&] {
        while (!done) {
            std::ifstream in(file, std::ios::binary);
            if (!in) continue;
            std::stringstream ss;
            ss << in.rdbuf();
            const std::string s = ss.str();
            ++reads;
            const bool whole = s.size() == kBytes && std::all_of(s.begin(), s.end(), [&](char c) { return c == s[0]; });
            if (!whole) ++torn;
        }
    });
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w)
        writers.emplace_back([&, w] {
            const std::string content(kBytes, static_cast<char>('a' + w));
            for (int i = 0; i < kWrites; ++i) {
                try {
                    mux::write_file_atomically(file, content);
                } catch (const std::exception&) {
                    ++failed_writes;  // e.g. another writer renamed a shared temporary away
                }
            }
        });
    for (auto& t : writers) t.join();
    done = true;
    reader.join();
    EXPECT_GT(reads.load(), 0);
    EXPECT_EQ(torn.load(), 0) << "of " << reads.load() << " reads";
    EXPECT_EQ(failed_writes.load(), 0) << "of " << kWriters * kWrites << " writes";
    int left = 0;
    for (const auto& e : fs::directory_iterator(dir)) left += e.path() != file;
    EXPECT_EQ(left, 0) << "no temporary file is left behind";
    fs::remove_all(dir);
}

}  // namespace
}  // namespace ladder
