// mux::OutputFolder: files appear whole or not at all, also when several
// writers (the shards of a plan, on a shared folder) write the same file at
// once; and nothing below the folder is ever written, removed or read
// through a symbolic link planted there.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "mux/output_folder.hpp"

namespace ladder {
namespace {

namespace fs = std::filesystem;

TEST(OutputFolder, WritersRacingOnOneFileNeverMixTheirContents) {
    const fs::path dir = fs::temp_directory_path() / ("ladder-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path file = dir / "chunk_00000.bin";
    const auto folder = mux::OutputFolder::open_named(dir, false);
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
                    folder.write_atomically("chunk_00000.bin", content);
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

// A folder with a planted link to a victim folder outside it.
struct Planted {
    fs::path root, out, victim;
    explicit Planted(const std::string& name) {
        root = fs::temp_directory_path() / ("ladder-planted-" + name + "-" + std::to_string(::getpid()));
        fs::remove_all(root);
        out = root / "out";
        victim = root / "victim";
        fs::create_directories(out);
        fs::create_directories(victim);
        std::ofstream(victim / "keep.txt") << "victim";
        fs::create_directory_symlink(victim, out / "180p");
        fs::create_symlink(victim / "keep.txt", out / "index.m3u8");
    }
    ~Planted() { fs::remove_all(root); }
    std::string victim_text() const {
        std::ifstream in(victim / "keep.txt");
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
};

// Two encoder workers journal a rung's first chunks at once: both make the
// rung's folder; each must get it, whichever made it.
TEST(OutputFolder, WritersMakingOneFolderAtOnceAllOpenIt) {
    const fs::path dir = fs::temp_directory_path() / ("ladder-mkdir-race-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const auto parent = mux::OutputFolder::open_named(dir, false);
    constexpr int kRounds = 300;
    constexpr int kWriters = 4;
    std::atomic<int> failures{0};
    std::string first_failure;
    std::mutex mu;
    for (int round = 0; round < kRounds; ++round) {
        const std::string name = "rung" + std::to_string(round);
        // All four released together: each spins until the last has
        // started, yielding, so that no thread can keep another from
        // running (a thread at real-time priority that spins without
        // yielding does, on two cores; see tests/unit/normal_scheduling.cpp).
        std::atomic<int> ready{0};
        std::vector<std::thread> writers;
        for (int w = 0; w < kWriters; ++w)
            writers.emplace_back([&] {
                ++ready;
                while (ready < kWriters) std::this_thread::yield();
                try {
                    (void)parent.folder(name);
                } catch (const std::exception& e) {
                    if (failures++ == 0) {
                        std::lock_guard lock(mu);
                        first_failure = e.what();
                    }
                }
            });
        for (auto& t : writers) t.join();
    }
    EXPECT_EQ(failures, 0) << first_failure;
    fs::remove_all(dir);
}

TEST(OutputFolder, RefusesALinkWhereItWouldOpenAFolderAndNamesIt) {
    Planted p("folder");
    const auto out = mux::OutputFolder::open_named(p.out, false);
    try {
        out.folder("180p");
        FAIL() << "a planted link was followed";
    } catch (const mux::UnsafeOutputPath& e) {
        EXPECT_NE(std::string(e.what()).find("180p is a symbolic link"), std::string::npos) << e.what();
    }
    EXPECT_THROW(out.folder("180p/deeper"), mux::UnsafeOutputPath);
    EXPECT_THROW(out.existing_folder("180p"), mux::UnsafeOutputPath);
    EXPECT_EQ(fs::directory_iterator(p.victim)->path().filename(), "keep.txt");
    EXPECT_EQ(std::distance(fs::directory_iterator(p.victim), fs::directory_iterator()), 1);
}

TEST(OutputFolder, ReplacesALinkAtAFileNameInsteadOfWritingThroughIt) {
    Planted p("file");
    const auto out = mux::OutputFolder::open_named(p.out, false);
    out.write_atomically("index.m3u8", std::string_view("#EXTM3U\n"));
    EXPECT_EQ(p.victim_text(), "victim");
    EXPECT_FALSE(fs::is_symlink(p.out / "index.m3u8"));
    const av::UniqueFd fd = out.create_file("index.m3u8");
    ASSERT_TRUE(fd);
    fs::create_symlink(p.victim / "keep.txt", p.out / ".x.mp4.part");
    const av::UniqueFd part = out.create_file(".x.mp4.part");
    ASSERT_TRUE(part);
    ASSERT_EQ(::write(part.get(), "overwritten", 11), 11);
    EXPECT_EQ(p.victim_text(), "victim");
}

TEST(OutputFolder, RemovesLinksNeverWhatTheyPointTo) {
    Planted p("remove");
    const auto out = mux::OutputFolder::open_named(p.out, false);
    EXPECT_TRUE(out.remove("index.m3u8"));
    EXPECT_FALSE(out.remove("index.m3u8"));
    fs::create_directories(p.out / ".ladder" / "720p");
    fs::create_directory_symlink(p.victim, p.out / ".ladder" / "720p" / "chunks");
    out.remove_tree(".ladder");
    out.remove_tree("180p");
    EXPECT_FALSE(fs::exists(fs::symlink_status(p.out / ".ladder")));
    EXPECT_FALSE(fs::exists(fs::symlink_status(p.out / "180p")));
    EXPECT_EQ(p.victim_text(), "victim");
}

TEST(OutputFolder, ReadsNoLinkAndNoFifo) {
    Planted p("read");
    const auto out = mux::OutputFolder::open_named(p.out, false);
    EXPECT_FALSE(out.read("index.m3u8").has_value()) << "read through a link";
    ASSERT_EQ(::mkfifo((p.out / "fifo").c_str(), 0644), 0);
    EXPECT_FALSE(out.read("fifo").has_value());
    out.write_atomically("plain", std::string_view("text"));
    EXPECT_EQ(out.read("plain").value_or(""), "text");
}

}  // namespace
}  // namespace ladder
