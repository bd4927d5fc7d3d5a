#pragma once
// The fixtures of the `ladder validate` e2e tests: a real ladder (HLS and
// DASH over the same segments, encoded once for every test process) and
// copies of it broken the ways a storage or packaging mistake, or a hostile
// author, breaks them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {

namespace fs = std::filesystem;

class Validate : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        const fs::path src = make_clip("validate", {320, 240, "25", 3.0, true, ""});
        good_ = new_dir("validate-good");
        // Every test process runs this; the encodes are shared between them.
        // HLS and DASH over the same segments: validate checks both.
        ProcessResult r = run_ladder_shared({"encode", src.string(), "-o", good_.string(), "--format", "hls,dash",
                                             "--rung", "240p=320x240@500", "--rung", "120p=160x120@200",
                                             "--segment-seconds", "1", "--preset", "12", "-q"},
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

    static void replace_all_in(const fs::path& file, const std::string& from, const std::string& to) {
        std::string text = read_text(file);
        ASSERT_NE(text.find(from), std::string::npos) << from << " in " << file;
        for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
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

    // The "../../../../etc/passwd" aimed at target: enough ".." to
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

}  // namespace ladder::test
