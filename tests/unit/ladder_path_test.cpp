// engine/check/ladder_path: a URI from a playlist resolves only to a file inside
// the ladder's folder, and nothing outside is ever opened (checked with
// inotify: root reads any file whatever its mode). Also the excerpts of
// file content that problem lines show, and the in-memory demuxer, which
// must not follow what its bytes name.
#include "engine/check/ladder_path.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "av/memory_input.hpp"
#include "mux/hls_syntax.hpp"
#include "tests/open_watch.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using engine::LadderFolder;
using engine::ReadStatus;
using engine::UriRefusal;

void write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

// scratch/ladder (with rung/seg.m4s) and scratch/outside (with secret).
class LadderPath : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        scratch_ = fs::temp_directory_path() / ("ladder-path-" + std::to_string(::getpid()) + "-" + info->name());
        fs::remove_all(scratch_);
        ladder_ = scratch_ / "ladder";
        outside_ = scratch_ / "outside";
        write(ladder_ / "rung/seg.m4s", "segment");
        write(outside_ / "secret", "root:x:0:0:root:/root:/bin/bash\n");
    }
    void TearDown() override { fs::remove_all(scratch_); }

    // The refusal for uri in rung/index.m3u8 (nullopt: it resolves).
    std::optional<UriRefusal> refusal(std::string_view uri) const {
        const auto r = LadderFolder(ladder_).resolve(ladder_ / "rung", uri);
        if (r.file) return std::nullopt;
        return r.refusal;
    }

    fs::path scratch_, ladder_, outside_;
};

TEST_F(LadderPath, ResolvesRelativeUrisInsideTheLadder) {
    const LadderFolder folder(ladder_);
    const auto r = folder.resolve(ladder_ / "rung", "seg.m4s");
    ASSERT_TRUE(r.file);
    EXPECT_EQ(r.file->path, ladder_ / "rung/seg.m4s");
    EXPECT_EQ(r.file->below_root, fs::path("rung/seg.m4s"));
    const auto bytes = folder.read(*r.file);
    EXPECT_EQ(bytes.status, ReadStatus::ok);
    EXPECT_EQ(std::string(bytes.bytes.begin(), bytes.bytes.end()), "segment");
    // Staying inside on the way is fine; so is a missing file (reported as missing).
    EXPECT_EQ(refusal("../rung/./seg.m4s"), std::nullopt);
    EXPECT_EQ(refusal("./a:b.m4s"), std::nullopt);
    EXPECT_EQ(refusal("%2e%2e/%2e%2e/secret"), std::nullopt);  // percent escapes are not decoded: a file name
    const auto missing = folder.resolve(ladder_ / "rung", "no-such.m4s");
    ASSERT_TRUE(missing.file);
    EXPECT_EQ(folder.read(*missing.file).status, ReadStatus::missing);
}

TEST_F(LadderPath, RefusesWhatLeadsOutBySyntax) {
    EXPECT_EQ(refusal("../../../../etc/passwd"), UriRefusal::climbs_out);
    EXPECT_EQ(refusal("../.."), UriRefusal::climbs_out);
    EXPECT_EQ(refusal("a/../../../outside/secret"), UriRefusal::climbs_out);
    EXPECT_EQ(refusal("/etc/shadow"), UriRefusal::absolute);
    EXPECT_EQ(refusal("http://127.0.0.1:1/x.m3u8"), UriRefusal::url);
    EXPECT_EQ(refusal("file:///etc/passwd"), UriRefusal::url);
    EXPECT_EQ(refusal("FILE:/etc/passwd"), UriRefusal::url);
    EXPECT_EQ(refusal("data:text/plain,x"), UriRefusal::url);
    EXPECT_EQ(refusal("//127.0.0.1/x.m3u8"), UriRefusal::url);
    EXPECT_EQ(refusal("seg:1.m4s"), UriRefusal::url);  // RFC 3986: a scheme to any player
    EXPECT_EQ(refusal(""), UriRefusal::empty);
    EXPECT_EQ(refusal(std::string("..\0/x", 5)), UriRefusal::control_byte);
    EXPECT_EQ(refusal("seg\n.m4s"), UriRefusal::control_byte);
}

TEST_F(LadderPath, RefusesLinksThatLeadOut) {
    fs::create_symlink(outside_ / "secret", ladder_ / "rung/linked.m4s");
    fs::create_symlink(outside_, ladder_ / "linked-rung");
    fs::create_symlink("../../outside/secret", ladder_ / "rung/relative-link.m4s");
    fs::create_symlink(ladder_ / "rung", ladder_ / "alias");  // stays inside: fine
    OpenWatch watch(outside_);
    ASSERT_TRUE(watch.ok());
    EXPECT_EQ(refusal("linked.m4s"), UriRefusal::link_leads_out);
    EXPECT_EQ(refusal("relative-link.m4s"), UriRefusal::link_leads_out);
    EXPECT_EQ(refusal("../linked-rung/secret"), UriRefusal::link_leads_out);
    EXPECT_EQ(refusal("../alias/seg.m4s"), std::nullopt);
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
}

TEST_F(LadderPath, AFolderSwappedForALinkAfterTheCheckIsNotFollowed) {
    const LadderFolder folder(ladder_);
    const auto r = folder.resolve(ladder_, "rung/seg.m4s");
    ASSERT_TRUE(r.file);
    // Between the check and the read, rung/ becomes a link to the outside.
    write(outside_ / "seg.m4s", "outside bytes");
    fs::remove_all(ladder_ / "rung");
    fs::create_symlink(outside_, ladder_ / "rung");
    OpenWatch watch(outside_);
    ASSERT_TRUE(watch.ok());
    const auto bytes = folder.read(*r.file);
    EXPECT_EQ(bytes.status, ReadStatus::outside);
    EXPECT_TRUE(bytes.bytes.empty());
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
}

TEST_F(LadderPath, NeverOpensAFifoOrAFolderForReading) {
    // A FIFO opened for reading would block until a writer came.
    ASSERT_EQ(::mkfifo((ladder_ / "rung/fifo.m4s").c_str(), 0600), 0);
    const LadderFolder folder(ladder_);
    const auto fifo = folder.resolve(ladder_ / "rung", "fifo.m4s");
    ASSERT_TRUE(fifo.file);
    EXPECT_EQ(folder.read(*fifo.file).status, ReadStatus::not_a_regular_file);
    const auto dir = folder.resolve(ladder_, "rung");
    ASSERT_TRUE(dir.file);
    EXPECT_EQ(folder.read(*dir.file).status, ReadStatus::not_a_regular_file);
}

// What bounds the counts validate believes: the names of files below the
// folder (links too), folders not counted, links to folders not followed.
TEST_F(LadderPath, CountsTheFilesBelowTheFolderWithoutFollowingLinks) {
    write(ladder_ / "rung/deeper/seg2.m4s", "segment");
    write(ladder_ / "master.m3u8", "#EXTM3U\n");
    fs::create_symlink("seg.m4s", ladder_ / "rung/link.m4s");
    fs::create_directory_symlink(outside_, ladder_ / "out");
    fs::create_symlink("no-such-file", ladder_ / "dangling");
    OpenWatch watch(outside_);
    ASSERT_TRUE(watch.ok());
    // rung/seg.m4s, rung/deeper/seg2.m4s, master.m3u8, rung/link.m4s, out, dangling
    EXPECT_EQ(LadderFolder(ladder_).file_count(), 6u);
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
}

// Two names of one file are one file: another spelling, a symbolic or a hard link.
TEST_F(LadderPath, GivesEveryNameOfAFileOneIdentity) {
    write(ladder_ / "rung/other.m4s", "segment");
    fs::create_symlink("seg.m4s", ladder_ / "rung/link.m4s");
    fs::create_hard_link(ladder_ / "rung/seg.m4s", ladder_ / "rung/hard.m4s");
    const LadderFolder folder(ladder_);
    const auto id = [&](std::string_view uri) { return folder.identity(*folder.resolve(ladder_ / "rung", uri).file); };
    ASSERT_TRUE(id("seg.m4s"));
    EXPECT_EQ(id("./seg.m4s"), id("seg.m4s"));
    EXPECT_EQ(id("../rung/seg.m4s"), id("seg.m4s"));
    EXPECT_EQ(id("link.m4s"), id("seg.m4s"));
    EXPECT_EQ(id("hard.m4s"), id("seg.m4s"));
    EXPECT_NE(id("other.m4s"), id("seg.m4s"));
    EXPECT_EQ(id("no-such.m4s"), std::nullopt);
}

// The syntax alone refuses what no folder could hold.
TEST(UriRefusalBySyntax, RefusesUrlsAbsolutePathsAndControlBytes) {
    EXPECT_EQ(engine::uri_refusal_by_syntax(""), UriRefusal::empty);
    EXPECT_EQ(engine::uri_refusal_by_syntax("http://127.0.0.1:9/"), UriRefusal::url);
    EXPECT_EQ(engine::uri_refusal_by_syntax("//host/x"), UriRefusal::url);
    EXPECT_EQ(engine::uri_refusal_by_syntax("/etc/"), UriRefusal::absolute);
    EXPECT_EQ(engine::uri_refusal_by_syntax("a\nb"), UriRefusal::control_byte);
    EXPECT_EQ(engine::uri_refusal_by_syntax("../120p/"), std::nullopt);  // for the folder it is resolved in
}

TEST(PathIsWithin, ComparesWholeElements) {
    EXPECT_TRUE(engine::path_is_within("/out/a", "/out"));
    EXPECT_TRUE(engine::path_is_within("/out", "/out"));
    EXPECT_FALSE(engine::path_is_within("/outside/a", "/out"));
    EXPECT_FALSE(engine::path_is_within("/", "/out"));
}

TEST(UriRefusalWords, SayOutsideTheLadderNotRead) {
    for (auto r : {UriRefusal::url, UriRefusal::absolute, UriRefusal::climbs_out, UriRefusal::link_leads_out})
        EXPECT_EQ(engine::describe(r).rfind("is outside the ladder: not read (", 0), 0u) << engine::describe(r);
}

TEST(Excerpt, IsShortAndEscaped) {
    EXPECT_EQ(mux::hls_syntax::excerpt("seg_00001.m4s"), "seg_00001.m4s");
    EXPECT_EQ(mux::hls_syntax::excerpt(std::string("a\x1b[2J\"\\\0b", 9)), "a\\x1b[2J\\\"\\\\\\x00b");
    const std::string line(1000, 'x');
    const std::string shown = mux::hls_syntax::excerpt(line);
    EXPECT_EQ(shown, std::string(mux::hls_syntax::kExcerptBytes, 'x') + "...");
    EXPECT_LE(mux::hls_syntax::kExcerptBytes, 40u);
}

// Bytes that look like an HLS playlist naming a file: the demuxer over
// memory reads fMP4 only and opens nothing, so the file stays untouched.
TEST(MemoryInput, OpensNothingItsBytesName) {
    const fs::path outside = fs::temp_directory_path() / ("ladder-memory-input-" + std::to_string(::getpid()));
    fs::remove_all(outside);
    write(outside / "seg.m4s", "not read");
    const std::string playlist = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n" +
                                 (outside / "seg.m4s").string() + "\n#EXT-X-ENDLIST\n";
    const std::string concat = "ffconcat version 1.0\nfile '" + (outside / "seg.m4s").string() + "'\n";
    OpenWatch watch(outside);
    ASSERT_TRUE(watch.ok());
    for (const std::string& text : {playlist, concat})
        EXPECT_ANY_THROW(av::MemoryInput(std::vector<std::uint8_t>(text.begin(), text.end()), "in memory"));
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
    fs::remove_all(outside);
}

}  // namespace
}  // namespace ladder::test
