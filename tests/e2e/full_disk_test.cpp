// A disk that fills up mid-run: ladder stops with one clear error and exit 1,
// and leaves nothing that looks complete (no master playlist, no rung
// playlist, no final MP4 name). The "disk" is a small tmpfs mounted for the
// test: directly when the test runs as root (CI), else in a user and mount
// namespace of this test process (ctest runs each test in its own process).
// The runs ask for --rate-control vbr, whose resume says how many chunks it
// took back.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

std::string fmt_error(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

bool write_proc_file(const char* path, const std::string& text) {
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return ok;
}

// Become root of a new user namespace with a private mount namespace, so an
// unprivileged test can mount a tmpfs that only this process and its children
// see.
std::string enter_private_mount_namespace() {
    static bool entered = false;
    if (entered) return "";
    const uid_t uid = ::getuid();
    const gid_t gid = ::getgid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        return fmt_error("unshare(CLONE_NEWUSER | CLONE_NEWNS)");
    write_proc_file("/proc/self/setgroups", "deny");
    if (!write_proc_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
        !write_proc_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))
        return "cannot write the user namespace's uid/gid map";
    entered = true;
    return "";
}

class SmallTmpfs {
public:
    SmallTmpfs(const fs::path& where, const std::string& size) : where_(where) {
        fs::create_directories(where_);
        const std::string opts = "size=" + size + ",mode=0755";
        if (::mount("tmpfs", where_.c_str(), "tmpfs", 0, opts.c_str()) == 0) {
            mounted_ = true;
            return;
        }
        const std::string first = std::strerror(errno);
        const std::string ns = enter_private_mount_namespace();
        if (ns.empty() && ::mount("tmpfs", where_.c_str(), "tmpfs", 0, opts.c_str()) == 0) {
            mounted_ = true;
            return;
        }
        why_not_ = "cannot mount a tmpfs (" + first + "; in a user namespace: " +
                   (ns.empty() ? std::string(std::strerror(errno)) : ns) + ")";
    }
    ~SmallTmpfs() {
        if (mounted_) ::umount2(where_.c_str(), MNT_DETACH);
    }
    SmallTmpfs(const SmallTmpfs&) = delete;
    SmallTmpfs& operator=(const SmallTmpfs&) = delete;

    bool mounted() const { return mounted_; }
    bool grow(const std::string& size) {
        const std::string opts = "size=" + size + ",mode=0755";
        return ::mount("tmpfs", where_.c_str(), "tmpfs", MS_REMOUNT, opts.c_str()) == 0;
    }
    const std::string& why_not() const { return why_not_; }

private:
    fs::path where_;
    bool mounted_ = false;
    std::string why_not_;
};

std::vector<std::string> error_lines(const std::string& err) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < err.size()) {
        std::size_t end = err.find('\n', start);
        if (end == std::string::npos) end = err.size();
        std::string line = err.substr(start, end - start);
        if (line.rfind("ladder: error: ", 0) == 0) lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

std::vector<std::string> files_under(const fs::path& dir) {
    std::vector<std::string> out;
    if (!fs::exists(dir)) return out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
    return out;
}

std::uintmax_t bytes_under(const fs::path& dir) {
    std::uintmax_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().filename() != "report.json") total += e.file_size();
    return total;
}

// 4 s of noise at 320x240, two rungs: about 1 MB of outputs, and as much
// again in the chunk journal while the run is under way.
fs::path noisy_source() {
    return make_clip("fulldisk-src", {320, 240, "25", 4.0, true, "noise=alls=40:allf=t"});
}

std::vector<std::string> encode_args(const fs::path& src, const fs::path& out, const std::string& format) {
    return {"encode", src.string(), "-o", out.string(), "--format", format, "--preset", "12", "--rung",
            "240p=320x240@1500", "--rung", "120p=160x120@400", "--segment-seconds", "1", "--progress", "plain",
            "--rate-control", "vbr"};
}

void expect_complete(const fs::path& out, const std::string& format) {
    if (format == "hls") {
        EXPECT_TRUE(fs::exists(out / "master.m3u8"));
        for (const char* rung : {"240p", "120p"}) {
            const fs::path playlist = out / rung / "index.m3u8";
            ASSERT_TRUE(fs::exists(playlist)) << playlist;
            EXPECT_NE(read_text(playlist).find("#EXT-X-ENDLIST"), std::string::npos) << playlist;
        }
    } else {
        for (const char* rung : {"240p", "120p"}) {
            const fs::path file = out / (std::string(rung) + ".mp4");
            ASSERT_TRUE(fs::exists(file)) << file;
            EXPECT_EQ(probe(file).video.at(0).frames, 100) << file;
        }
    }
}

// A failed run: exit 1, one error line that says the disk is full, where,
// and what to do; and nothing that claims to be complete.
void expect_clean_failure(const ProcessResult& r, const fs::path& out) {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const auto errors = error_lines(r.err);
    ASSERT_EQ(errors.size(), 1u) << "one error line: " << r.err;
    EXPECT_NE(errors[0].find("No space left on device"), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find(out.string()), std::string::npos) << "says where: " << errors[0];
    EXPECT_NE(errors[0].find("free space"), std::string::npos) << "says what to do: " << errors[0];
    EXPECT_NE(errors[0].find("--resume"), std::string::npos) << "says what to do: " << errors[0];
    for (const auto& f : files_under(out)) {
        SCOPED_TRACE(f);
        const fs::path p(f);
        EXPECT_NE(p.extension(), ".m3u8") << "a playlist was left although the run failed";
        EXPECT_FALSE(p.extension() == ".mp4" && p.parent_path().empty()) << "an MP4 under its final name was left";
        EXPECT_NE(p.filename().string().front(), '.') << "a temporary file was left behind";
    }
}

// A run that does not end fails the test instead of blocking CI.
constexpr int kWatchdog = 60;

class FullDisk : public testing::TestWithParam<std::string> {};

// The disk fills up at three points of the same run (sizes relative to what
// the run writes): while chunks are journaled, halfway through the outputs,
// and just before the end. Each fails cleanly; after the space is freed,
// --resume finishes the ladder from the journal without encoding again.
TEST_P(FullDisk, FailsCleanlyWhereverTheDiskFillsAndResumesOnceSpaceIsFreed) {
    const std::string format = GetParam();
    const fs::path src = noisy_source();
    const fs::path root = fresh_dir("fulldisk-" + format);

    // The smallest of three runs: the output size varies from run to run
    // (SVT-AV1's VBR with threads; ladder's rate requests follow what the
    // sessions that finished first made: 955 to 1125 KB in four runs), and a
    // disk sized from a large run could hold a small one.
    std::uintmax_t written = 0;
    for (int measure = 0; measure < 3; ++measure) {
        SmallTmpfs disk(root / "large", "64m");
        if (!disk.mounted()) GTEST_SKIP() << disk.why_not();
        auto r = run_ladder(encode_args(src, root / "large" / "out", format), {}, kWatchdog);
        ASSERT_EQ(r.exit_code, 0) << "the run must fit a large disk: " << r.err;
        expect_complete(root / "large" / "out", format);
        const std::uintmax_t bytes = bytes_under(root / "large" / "out");
        written = measure == 0 ? bytes : std::min(written, bytes);
    }
    std::printf("[ metric   ] %s outputs: %ju bytes\n", format.c_str(), written);
    ASSERT_GT(written, 500000u);

    // 1. Everything on one small disk: it fills while chunks are journaled.
    {
        const auto kib = static_cast<std::uintmax_t>(0.3 * static_cast<double>(written) / 1024.0);
        SmallTmpfs disk(root / "tiny", std::to_string(kib) + "k");
        ASSERT_TRUE(disk.mounted()) << disk.why_not();
        const fs::path out = root / "tiny" / "out";
        auto r = run_ladder(encode_args(src, out, format), {}, kWatchdog);
        SCOPED_TRACE("disk of " + std::to_string(kib) + " KiB");
        expect_clean_failure(r, out);
    }

    // 2. The journal (OUTDIR/.ladder) on a disk of its own, the outputs on a
    // small one: the small one fills while segments, MP4s or playlists are
    // written, at half the outputs and just before the end. Which write
    // comes last depends on the threads, so the journal is kept out of the
    // way rather than raced.
    // SVT-AV1's VBR is not deterministic with threads (the same encode
    // varies by a few percent from run to run, also in the ffmpeg CLI), so
    // "just before the end" is 85% of the measured outputs, not 97%.
    for (const double fraction : {0.5, 0.85}) {
        const auto kib = static_cast<std::uintmax_t>(fraction * static_cast<double>(written) / 1024.0);
        SCOPED_TRACE("outputs disk of " + std::to_string(kib) + " KiB");
        const fs::path out = root / ("disk-" + std::to_string(kib) + "k");
        SmallTmpfs disk(out, std::to_string(kib) + "k");
        ASSERT_TRUE(disk.mounted()) << disk.why_not();
        SmallTmpfs journal_disk(out / ".ladder", "64m");
        ASSERT_TRUE(journal_disk.mounted()) << journal_disk.why_not();
        auto r = run_ladder(encode_args(src, out, format), {}, kWatchdog);
        expect_clean_failure(r, out);
        const auto errors = error_lines(r.err);
        ASSERT_FALSE(errors.empty());
        EXPECT_EQ(errors[0].find("/.ladder/"), std::string::npos) << "fills with outputs, not the journal: " << errors[0];
        std::printf("[ metric   ] %ju KiB: %s\n", kib, errors[0].substr(0, 140).c_str());

        // 3. Space freed: the same command with --resume finishes the ladder
        // from the journal without encoding again.
        if (fraction > 0.8) {
            ASSERT_TRUE(disk.grow("64m"));
            auto args = encode_args(src, out, format);
            args.push_back("--resume");
            auto again = run_ladder(args, {}, kWatchdog);
            ASSERT_EQ(again.exit_code, 0) << again.err;
            EXPECT_NE((again.out + again.err).find("resumed"), std::string::npos)
                << "chunks come from the journal: " << again.err;
            expect_complete(out, format);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, FullDisk, testing::Values("hls", "mp4"));

}  // namespace
}  // namespace ladder::test
