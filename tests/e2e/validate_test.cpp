// `ladder validate` on a real ladder (valid) and on copies broken in the ways
// a storage or packaging mistake breaks them: each problem must be named.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <regex>

#include "hls_tools.hpp"
#include "media_tools.hpp"
#include "tests/open_watch.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

class Validate : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        const fs::path src = make_clip("validate", {320, 240, "25", 3.0, true, ""});
        good_ = new_dir("validate-good");
        // Every test process runs this; the encodes are shared between them.
        ProcessResult r = run_ladder_shared({"encode", src.string(), "-o", good_.string(), "--rung", "240p=320x240@500",
                                             "--rung", "120p=160x120@200", "--segment-seconds", "1", "--preset", "12",
                                             "-q"},
                                            good_);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        // The same source cut into 1.5 s segments: a rung that does not line up.
        other_ = new_dir("validate-other");
        r = run_ladder_shared({"encode", src.string(), "-o", other_.string(), "--rung", "120p=160x120@200",
                               "--segment-seconds", "1.5", "--preset", "12", "-q"},
                              other_);
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }

    static fs::path new_dir(const std::string& name) { return fresh_dir(name); }

    fs::path copy_of_good(const std::string& name) {
        fs::path d = fresh_dir(name);
        fs::copy(good_, d, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        return d;
    }

    static void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
        std::string text = read_text(file);
        const auto pos = text.find(from);
        ASSERT_NE(pos, std::string::npos) << from << " in " << file;
        text.replace(pos, from.size(), to);
        std::ofstream(file, std::ios::trunc) << text;
    }

    // An init segment's edit list (elst, version 0) made to start at media time 0.
    static void zero_edit_list_media_time(const fs::path& init) {
        std::string bytes = read_text(init);
        const auto at = bytes.find("elst");
        ASSERT_NE(at, std::string::npos) << init << " has no edit list";
        ASSERT_EQ(bytes[at + 4], '\0') << "version 0";
        bytes.replace(at + 16, 4, std::string(4, '\0'));  // after version+flags, entry_count, segment_duration
        std::ofstream(init, std::ios::binary | std::ios::trunc) << bytes;
    }

    static ProcessResult validate(const fs::path& dir) { return run_ladder({"validate", dir.string()}); }

    static inline fs::path good_;
    static inline fs::path other_;
};

TEST_F(Validate, AcceptsAFreshLadder) {
    ProcessResult r = validate(good_);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("2 variants, 9 segments checked, 0 problems"), std::string::npos) << r.err;
}

TEST_F(Validate, NamesAMissingSegment) {
    const fs::path d = copy_of_good("validate-missing");
    fs::remove(d / "240p/seg_00002.m4s");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("240p/seg_00002.m4s: missing"), std::string::npos) << r.out;
}

TEST_F(Validate, NamesAWrongCodecs) {
    const fs::path d = copy_of_good("validate-codecs");
    std::string master = read_text(d / "master.m3u8");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(master, m, std::regex("CODECS=\"(av01[^,\"]*)")));
    const std::string real = m[1];
    replace_in(d / "master.m3u8", real, "av01.0.13M.08");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("CODECS says av01.0.13M.08 but its init segment's av1C says " + real), std::string::npos)
        << r.out;
}

TEST_F(Validate, NamesATamperedExtinf) {
    const fs::path d = copy_of_good("validate-extinf");
    replace_in(d / "120p/index.m3u8", "#EXTINF:1.000000,\nseg_00002.m4s", "#EXTINF:1.400000,\nseg_00002.m4s");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("120p/seg_00002.m4s: EXTINF says 1.400000 s but its samples last 1.000000 s"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("rungs do not line up"), std::string::npos) << r.out;
}

// The edit list that hides the AAC encoder's priming (1024 samples before
// 0) is what puts the audio on the video's timeline: with its media_time
// set to 0 the priming plays first and the audio runs one frame past the
// video's end (issue 41).
TEST_F(Validate, NamesAudioThatPlaysItsEncodersPriming) {
    const fs::path d = copy_of_good("validate-priming");
    zero_edit_list_media_time(d / "audio/aac/init.mp4");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("master.m3u8: audio audio/aac/index.m3u8 starts at 0.021333 s (where its first AAC frame, "
                         "the encoder's priming, ends), the video at 0.000000 s"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("master.m3u8: audio audio/aac/index.m3u8 ends at 3.021333 s, the video at 3.000000 s"),
              std::string::npos)
        << r.out;
}

TEST_F(Validate, NamesAMisalignedRung) {
    const fs::path d = copy_of_good("validate-misaligned");
    fs::remove_all(d / "120p");
    fs::copy(other_ / "120p", d / "120p", fs::copy_options::recursive);
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("120p/index.m3u8: 2 segments, but 240p/index.m3u8 has 3: rungs do not line up"),
              std::string::npos)
        << r.out;
}

TEST_F(Validate, NamesAWrongBandwidth) {
    const fs::path d = copy_of_good("validate-bandwidth");
    std::string master = read_text(d / "master.m3u8");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(master, m, std::regex("AVERAGE-BANDWIDTH=([0-9]+)")));
    replace_in(d / "master.m3u8", "AVERAGE-BANDWIDTH=" + std::string(m[1]),
               "AVERAGE-BANDWIDTH=" + std::to_string(std::stoll(m[1]) * 2));
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("AVERAGE-BANDWIDTH=" + std::to_string(std::stoll(m[1]) * 2)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("more than 10% apart"), std::string::npos) << r.out;
}

TEST_F(Validate, NamesAMissingMasterAndABadFolder) {
    const fs::path d = copy_of_good("validate-nomaster");
    fs::remove(d / "master.m3u8");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("master.m3u8: missing"), std::string::npos) << r.out;
    EXPECT_EQ(validate(d / "no-such-folder").exit_code, 2);
}

// Issue #24: a ladder someone else made names files outside it. validate
// reports each URI and opens nothing outside: the folder it points into is
// watched with inotify (root reads any file whatever its mode), and a FIFO
// there would block an open for reading (the run has a time limit).
class ValidateUris : public Validate {
protected:
    // What a hostile ladder points at, next to the ladder's folder.
    static fs::path outside(const std::string& name) {
        const fs::path d = fresh_dir(name + "-outside");
        std::ofstream(d / "passwd") << "root:x:0:0:root:/root:/bin/bash\n";
        std::ofstream(d / "shadow") << "root:*:20228:0:99999:7:::\n";
        return d;
    }

    // The issue's "../../../../etc/passwd" aimed at target: enough ".." to
    // reach / from the ladder, then target's absolute path.
    static std::string climbing_to(const fs::path& target) {
        std::string up;
        for (int i = 0; i < 10; ++i) up += "../";
        return up + target.relative_path().string();
    }

    static ProcessResult validate_with_time_limit(const fs::path& dir) {
        return run_ladder({"validate", dir.string()}, {}, 120);
    }

    static void expect_refused(const ProcessResult& r, const std::string& playlist, const std::string& uri,
                               const std::string& why) {
        const std::string line = playlist + ": URI \"" + uri + "\" is outside the ladder: not read (" + why;
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\nnot in:\n" << r.out;
    }

    static void expect_nothing_shown_from_outside(const ProcessResult& r) {
        EXPECT_EQ(r.out.find("root:"), std::string::npos) << r.out;
        EXPECT_EQ(r.err.find("root:"), std::string::npos) << r.err;
    }
};

TEST_F(ValidateUris, RefusesTheUrisFromTheIssueAndShowsNothingOfThem) {
    const fs::path d = copy_of_good("validate-issue24");
    replace_in(d / "master.m3u8", "\n240p/index.m3u8", "\n../../../../etc/passwd");
    replace_in(d / "master.m3u8", "\n120p/index.m3u8", "\n/etc/shadow");
    std::ofstream(d / "master.m3u8", std::ios::app) << "#EXT-X-STREAM-INF:BANDWIDTH=1\nhttp://127.0.0.1:1/x.m3u8\n";
    const ProcessResult r = validate_with_time_limit(d);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    expect_refused(r, "master.m3u8", "../../../../etc/passwd", "its .. leaves the ladder's folder)");
    expect_refused(r, "master.m3u8", "/etc/shadow", "an absolute path)");
    expect_refused(r, "master.m3u8", "http://127.0.0.1:1/x.m3u8", "a URL; ladder validate checks local ladders only)");
    expect_nothing_shown_from_outside(r);
}

TEST_F(ValidateUris, OpensNothingThatEscapingUrisName) {
    const fs::path d = copy_of_good("validate-escaping");
    const fs::path out = outside("validate-escaping");
    ASSERT_EQ(::mkfifo((out / "fifo.m3u8").c_str(), 0600), 0);
    replace_in(d / "master.m3u8", "\n240p/index.m3u8", "\n" + climbing_to(out / "passwd"));
    replace_in(d / "master.m3u8", "\n120p/index.m3u8", "\n" + (out / "shadow").string());
    replace_in(d / "master.m3u8", "URI=\"audio/aac/index.m3u8\"", "URI=\"" + climbing_to(out / "fifo.m3u8") + "\"");
    std::ofstream(d / "master.m3u8", std::ios::app)
        << "#EXT-X-STREAM-INF:BANDWIDTH=1\nfile://" << (out / "passwd").string() << "\n";
    OpenWatch watch(out);
    ASSERT_TRUE(watch.ok());
    const ProcessResult r = validate_with_time_limit(d);
    EXPECT_FALSE(r.timed_out) << "validate opened the FIFO outside the ladder";
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    expect_refused(r, "master.m3u8", climbing_to(out / "passwd"), "its ..");
    expect_refused(r, "master.m3u8", (out / "shadow").string(), "an absolute path)");
    expect_refused(r, "master.m3u8", climbing_to(out / "fifo.m3u8"), "its ..");
    expect_refused(r, "master.m3u8", "file://" + (out / "passwd").string(), "a URL");
    expect_nothing_shown_from_outside(r);
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
}

TEST_F(ValidateUris, FollowsNoSymlinkedSegmentOrVariantFolderLeadingOut) {
    const fs::path d = copy_of_good("validate-links");
    const fs::path out = outside("validate-links");
    fs::rename(d / "240p", out / "240p");
    fs::create_directory_symlink(out / "240p", d / "240p");
    fs::rename(d / "120p/seg_00002.m4s", out / "seg_00002.m4s");
    fs::create_symlink(out / "seg_00002.m4s", d / "120p/seg_00002.m4s");
    OpenWatch watch(out);
    ASSERT_TRUE(watch.ok());
    const ProcessResult r = validate_with_time_limit(d);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    expect_refused(r, "master.m3u8", "240p/index.m3u8", "a symbolic link");
    expect_refused(r, "master.m3u8", "240p/iframes.m3u8", "a symbolic link");
    expect_refused(r, "120p/index.m3u8", "seg_00002.m4s", "a symbolic link");
    expect_refused(r, "120p/iframes.m3u8", "seg_00002.m4s", "a symbolic link");
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
}

TEST_F(ValidateUris, FollowsNoEscapingMapOrIFramePlaylist) {
    const fs::path d = copy_of_good("validate-map");
    const fs::path out = outside("validate-map");
    fs::copy_file(d / "120p/init.mp4", out / "init.mp4");
    fs::copy_file(d / "240p/iframes.m3u8", out / "iframes.m3u8");
    replace_in(d / "120p/index.m3u8", "URI=\"init.mp4\"", "URI=\"" + climbing_to(out / "init.mp4") + "\"");
    replace_in(d / "120p/iframes.m3u8", "URI=\"init.mp4\"", "URI=\"" + (out / "init.mp4").string() + "\"");
    replace_in(d / "master.m3u8", "URI=\"240p/iframes.m3u8\"", "URI=\"" + climbing_to(out / "iframes.m3u8") + "\"");
    OpenWatch watch(out);
    ASSERT_TRUE(watch.ok());
    const ProcessResult r = validate_with_time_limit(d);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    expect_refused(r, "120p/index.m3u8", climbing_to(out / "init.mp4"), "its ..");
    expect_refused(r, "120p/iframes.m3u8", (out / "init.mp4").string(), "an absolute path)");
    expect_refused(r, "master.m3u8", climbing_to(out / "iframes.m3u8"), "its ..");
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
}

TEST_F(ValidateUris, FollowsNoMasterPlaylistLinkedFromOutside) {
    const fs::path d = copy_of_good("validate-master-link");
    const fs::path out = outside("validate-master-link");
    fs::rename(d / "master.m3u8", out / "master.m3u8");
    fs::create_symlink(out / "master.m3u8", d / "master.m3u8");
    OpenWatch watch(out);
    ASSERT_TRUE(watch.ok());
    const ProcessResult r = validate_with_time_limit(d);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    expect_refused(r, "master.m3u8", "master.m3u8", "a symbolic link");
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
}

// libavformat never gets bytes it could follow: an "init segment" that is
// an HLS playlist naming a file outside is read as fMP4 (and refused), not
// handed to the HLS demuxer.
TEST_F(ValidateUris, DemuxesNoPlaylistHiddenInAnInitSegment) {
    const fs::path d = copy_of_good("validate-hidden-playlist");
    const fs::path out = outside("validate-hidden-playlist");
    fs::copy_file(d / "240p/seg_00001.m4s", out / "seg.m4s");
    std::ofstream(d / "240p/init.mp4", std::ios::trunc)
        << "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n"
        << (out / "seg.m4s").string() << "\n#EXTINF:1.0,\n" << (out / "passwd").string() << "\n#EXT-X-ENDLIST\n";
    OpenWatch watch(out);
    ASSERT_TRUE(watch.ok());
    const ProcessResult r = validate_with_time_limit(d);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("240p/init.mp4: not a readable init segment"), std::string::npos) << r.out;
    expect_nothing_shown_from_outside(r);
    EXPECT_EQ(watch.touched(), std::vector<std::string>{});
}

}  // namespace
}  // namespace ladder::test
