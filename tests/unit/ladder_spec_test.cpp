// LadderSpec: the default ladder, JSON presets (each fitted to a few
// sources), --rung arguments and validation (fitting a ladder to the
// source: ladder_fit_test.cpp).
#include "engine/plan/ladder_spec.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"

namespace fs = std::filesystem;
using ladder::engine::default_ladder;
using ladder::engine::fit_to_source;
using ladder::engine::InputError;
using ladder::engine::LadderSpec;
using ladder::engine::load_ladder_file;
using ladder::engine::parse_ladder_json;
using ladder::engine::parse_rung_argument;
using ladder::engine::RungSpec;
using ladder::engine::validate_ladder;

namespace {

// Runs f, expects InputError, returns its message.
template <typename F>
std::string input_error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
        return {};
    }
    ADD_FAILURE() << "expected InputError, nothing was thrown";
    return {};
}

std::string one_rung_json(const std::string& rung_fields) {
    return R"({"rungs": [{)" + rung_fields + "}]}";
}

// The repository root: tests/unit/<this file> -> ../..
fs::path source_root() {
    if (const char* env = std::getenv("LADDER_SOURCE_DIR")) return env;
    return fs::path(__FILE__).parent_path().parent_path().parent_path();
}

class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = fs::temp_directory_path() /
                ("ladder-unit-" + std::to_string(::getpid()) + "-" + info->name());
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }
    fs::path write(const std::string& name, const std::string& text) const {
        fs::path p = path_ / name;
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }

private:
    fs::path path_;
};

}  // namespace

// ---------------------------------------------------------------- default ladder

TEST(DefaultLadder, HasTheDocumentedRungs) {
    const LadderSpec spec = default_ladder();
    ASSERT_EQ(spec.rungs.size(), 4u);
    EXPECT_EQ(spec.rungs[0].name, "1080p");
    EXPECT_EQ(spec.rungs[0].height, 1080);
    EXPECT_EQ(spec.rungs[0].bitrate_kbps, 4500);
    EXPECT_EQ(spec.rungs[1].name, "720p");
    EXPECT_EQ(spec.rungs[1].height, 720);
    EXPECT_EQ(spec.rungs[1].bitrate_kbps, 2500);
    EXPECT_EQ(spec.rungs[2].name, "540p");
    EXPECT_EQ(spec.rungs[2].height, 540);
    EXPECT_EQ(spec.rungs[2].bitrate_kbps, 1200);
    EXPECT_EQ(spec.rungs[3].name, "360p");
    EXPECT_EQ(spec.rungs[3].height, 360);
    EXPECT_EQ(spec.rungs[3].bitrate_kbps, 600);
    for (const auto& r : spec.rungs) EXPECT_EQ(r.width, 0) << r.name << ": width is derived from the source";
    EXPECT_NO_THROW(validate_ladder(spec));
}

// ---------------------------------------------------------------- JSON presets

TEST(LadderJson, ValidPresetParses) {
    const std::string text = R"({
        "rungs": [
            {"name": "1080p", "width": 1920, "height": 1080, "bitrate_kbps": 5000,
             "maxrate_kbps": 7500, "bufsize_kbps": 10000},
            {"name": "720p", "height": 720, "bitrate_kbps": 2500},
            {"name": "low_360.v2", "height": 360, "bitrate_kbps": 500}
        ]
    })";
    const LadderSpec spec = parse_ladder_json(text, "preset.json");
    ASSERT_EQ(spec.rungs.size(), 3u);
    EXPECT_EQ(spec.rungs[0].name, "1080p");
    EXPECT_EQ(spec.rungs[0].width, 1920);
    EXPECT_EQ(spec.rungs[0].height, 1080);
    EXPECT_EQ(spec.rungs[0].bitrate_kbps, 5000);
    EXPECT_EQ(spec.rungs[0].maxrate_kbps, 7500);
    EXPECT_EQ(spec.rungs[0].bufsize_kbps, 10000);
    EXPECT_EQ(spec.rungs[1].name, "720p");
    EXPECT_EQ(spec.rungs[1].width, 0);
    EXPECT_EQ(spec.rungs[1].maxrate_kbps, 0);
    EXPECT_EQ(spec.rungs[1].bufsize_kbps, 0);
    EXPECT_EQ(spec.rungs[2].name, "low_360.v2");
}

TEST(LadderJson, UnknownKeysAreIgnored) {
    const LadderSpec spec =
        parse_ladder_json(R"({"comment": "x", "rungs": [{"name": "a", "height": 360, "bitrate_kbps": 600, "note": 1}]})",
                          "p.json");
    ASSERT_EQ(spec.rungs.size(), 1u);
}

TEST(LadderJson, MalformedJsonNamesTheFile) {
    for (const std::string text : {"", "{", "{rungs: []}", R"({"rungs": [)", "not json", R"({"rungs": []}}})"}) {
        SCOPED_TRACE(text);
        const auto msg = input_error_of([&] { parse_ladder_json(text, "my-preset.json"); });
        EXPECT_NE(msg.find("my-preset.json"), std::string::npos) << msg;
    }
}

TEST(LadderJson, MissingOrWrongRungsArray) {
    for (const std::string text : {"{}", R"({"ladder": []})", R"({"rungs": {}})", R"({"rungs": "720p"})", "[]",
                                   "42", "null", R"({"rungs": null})"}) {
        SCOPED_TRACE(text);
        const auto msg = input_error_of([&] { parse_ladder_json(text, "x.json"); });
        EXPECT_NE(msg.find("x.json"), std::string::npos) << msg;
        EXPECT_NE(msg.find("rungs"), std::string::npos) << msg;
    }
}

TEST(LadderJson, EmptyRungsArrayIsRejected) {
    const auto msg = input_error_of([] { parse_ladder_json(R"({"rungs": []})", "empty.json"); });
    EXPECT_NE(msg.find("empty.json"), std::string::npos) << msg;
}

TEST(LadderJson, BadTypesAreRejectedWithTheFileName) {
    const std::vector<std::string> bad = {
        R"({"rungs": [5]})",
        R"({"rungs": [[]]})",
        one_rung_json(R"("height": 720, "bitrate_kbps": 2500)"),                   // no name
        one_rung_json(R"("name": 720, "height": 720, "bitrate_kbps": 2500)"),      // name not a string
        one_rung_json(R"("name": null, "height": 720, "bitrate_kbps": 2500)"),
        one_rung_json(R"("name": "a", "height": "720", "bitrate_kbps": 2500)"),    // string number
        one_rung_json(R"("name": "a", "height": 720.5, "bitrate_kbps": 2500)"),    // float
        one_rung_json(R"("name": "a", "height": 720, "bitrate_kbps": true)"),      // bool
        one_rung_json(R"("name": "a", "height": 720, "bitrate_kbps": [2500])"),
        one_rung_json(R"("name": "a", "height": 720, "bitrate_kbps": 2500, "width": {})"),
        one_rung_json(R"("name": "a", "height": 720, "bitrate_kbps": 2500, "maxrate_kbps": "x")"),
        one_rung_json(R"("name": "a", "height": 720, "bitrate_kbps": 2500, "bufsize_kbps": null)"),
    };
    for (const auto& text : bad) {
        SCOPED_TRACE(text);
        const auto msg = input_error_of([&] { parse_ladder_json(text, "types.json"); });
        EXPECT_NE(msg.find("types.json"), std::string::npos) << msg;
    }
}

TEST(LadderJson, MissingHeightOrBitrateIsRejected) {
    for (const auto& fields : {std::string(R"("name": "a", "bitrate_kbps": 2500)"),
                               std::string(R"("name": "a", "height": 720)")}) {
        SCOPED_TRACE(fields);
        input_error_of([&] { parse_ladder_json(one_rung_json(fields), "m.json"); });
    }
}

TEST(LadderJson, DuplicateNamesAreRejected) {
    const std::string text = R"({"rungs": [
        {"name": "720p", "height": 720, "bitrate_kbps": 2500},
        {"name": "720p", "height": 540, "bitrate_kbps": 1200}]})";
    const auto msg = input_error_of([&] { parse_ladder_json(text, "dup.json"); });
    EXPECT_NE(msg.find("dup.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("720p"), std::string::npos) << msg;
}

TEST(LadderJson, UnsafeNamesAreRejected) {
    // JSON escapes: "\u0000" is a NUL inside the name.
    for (const std::string name : {R"(../x)", R"(a/b)", R"()", R"(a\u0000b)", R"(\u0000)", R"(..)", R"(.hidden)",
                                   R"(-x)", R"(a\\b)", R"(a b)", R"(/abs)", R"(720p\n)", R"(é)"}) {
        SCOPED_TRACE(name);
        const auto text = one_rung_json(R"("name": ")" + name + R"(", "height": 720, "bitrate_kbps": 2500)");
        const auto msg = input_error_of([&] { parse_ladder_json(text, "names.json"); });
        EXPECT_NE(msg.find("names.json"), std::string::npos) << msg;
        // The name is shown escaped: one line, no raw control bytes.
        EXPECT_EQ(msg.find('\0'), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    // 64 characters are allowed, 65 are not.
    EXPECT_NO_THROW(parse_ladder_json(
        one_rung_json(R"("name": ")" + std::string(64, 'a') + R"(", "height": 720, "bitrate_kbps": 2500)"), "n.json"));
    input_error_of([] {
        parse_ladder_json(
            one_rung_json(R"("name": ")" + std::string(65, 'a') + R"(", "height": 720, "bitrate_kbps": 2500)"),
            "n.json");
    });
}

TEST(LadderJson, BadNumbersAreRejected) {
    const std::vector<std::string> bad = {
        R"("name": "a", "height": 721, "bitrate_kbps": 2500)",    // odd height
        R"("name": "a", "height": 8, "bitrate_kbps": 2500)",      // too small
        R"("name": "a", "height": 0, "bitrate_kbps": 2500)",
        R"("name": "a", "height": -720, "bitrate_kbps": 2500)",
        R"("name": "a", "height": 8194, "bitrate_kbps": 2500)",   // too large
        R"("name": "a", "width": 1279, "height": 720, "bitrate_kbps": 2500)",  // odd width
        R"("name": "a", "width": -2, "height": 720, "bitrate_kbps": 2500)",
        R"("name": "a", "height": 720, "bitrate_kbps": 0)",       // non-positive bitrate
        R"("name": "a", "height": 720, "bitrate_kbps": -2500)",
        R"("name": "a", "height": 720, "bitrate_kbps": 2500, "maxrate_kbps": 2000)",  // maxrate < bitrate
        R"("name": "a", "height": 720, "bitrate_kbps": 2500, "maxrate_kbps": -1)",
        R"("name": "a", "height": 720, "bitrate_kbps": 2500, "bufsize_kbps": -1)",
    };
    for (const auto& fields : bad) {
        SCOPED_TRACE(fields);
        const auto msg = input_error_of([&] { parse_ladder_json(one_rung_json(fields), "numbers.json"); });
        EXPECT_NE(msg.find("numbers.json"), std::string::npos) << msg;
    }
}

// Disabled: documents a production bug (see the unit-test report). get_int()
// accepts any JSON integer and converts it with get<int>(), which wraps values
// outside int's range: 4294968016 (2^32 + 720) silently becomes a valid 720.
TEST(LadderJson, OutOfRangeIntegersAreRejected) {
    for (const auto& fields : {std::string(R"("name": "a", "height": 4294968016, "bitrate_kbps": 2500)"),
                               std::string(R"("name": "a", "height": 720, "bitrate_kbps": 4294969796)"),
                               std::string(R"("name": "a", "height": 720, "bitrate_kbps": 18446744073709551615)")}) {
        SCOPED_TRACE(fields);
        input_error_of([&] { parse_ladder_json(one_rung_json(fields), "big.json"); });
    }
}

TEST(LadderJson, NumbersBeyondADoubleAreAnInputError) {
    // nlohmann/json throws out_of_range (not parse_error) for these; found by
    // tests/fuzz/fuzz_ladder_json, which kept the input as a regression.
    for (const auto& fields : {std::string(R"("name": "a", "height": 1E400, "bitrate_kbps": 2500)"),
                               std::string(R"("name": "a", "height": 720, "bitrate_kbps": -9e999)")}) {
        SCOPED_TRACE(fields);
        const auto msg = input_error_of([&] { parse_ladder_json(one_rung_json(fields), "huge.json"); });
        EXPECT_NE(msg.find("huge.json"), std::string::npos) << msg;
        EXPECT_NE(msg.find("too large"), std::string::npos) << msg;
    }
}

// ---------------------------------------------------------------- preset files

TEST(LadderFile, LoadsAFile) {
    TempDir dir;
    const auto path = dir.write("ok.json", R"({"rungs": [{"name": "360p", "height": 360, "bitrate_kbps": 600}]})");
    const LadderSpec spec = load_ladder_file(path);
    ASSERT_EQ(spec.rungs.size(), 1u);
    EXPECT_EQ(spec.rungs[0].name, "360p");
}

TEST(LadderFile, MissingFileNamesThePath) {
    TempDir dir;
    const auto path = dir.path() / "does-not-exist.json";
    const auto msg = input_error_of([&] { load_ladder_file(path); });
    EXPECT_NE(msg.find("does-not-exist.json"), std::string::npos) << msg;
}

TEST(LadderFile, MalformedFileNamesThePath) {
    TempDir dir;
    const auto path = dir.write("broken-preset.json", R"({"rungs": [ {"name": "720p", )");
    const auto msg = input_error_of([&] { load_ladder_file(path); });
    EXPECT_NE(msg.find("broken-preset.json"), std::string::npos) << msg;
}

TEST(LadderFile, DirectoryIsAnInputError) {
    TempDir dir;
    input_error_of([&] { load_ladder_file(dir.path()); });
}

// Every preset shipped under samples/ladders/ must load, validate and fit a
// common source. When the folder does not exist, the default ladder stands in.
TEST(LadderFile, ShippedPresetsLoad) {
    const fs::path folder = source_root() / "samples" / "ladders";
    RecordProperty("presets_folder", folder.string());
    if (!fs::is_directory(folder)) {
        const LadderSpec spec = default_ladder();
        EXPECT_NO_THROW(validate_ladder(spec));
        EXPECT_EQ(fit_to_source(spec, 1920, 1080).ladder.rungs.size(), spec.rungs.size());
        return;
    }
    int loaded = 0;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
        SCOPED_TRACE(entry.path().string());
        LadderSpec spec;
        try {
            spec = load_ladder_file(entry.path());
        } catch (const std::exception& e) {
            ADD_FAILURE() << "preset " << entry.path() << " does not load: " << e.what();
            continue;
        }
        ++loaded;
        EXPECT_FALSE(spec.rungs.empty());
        EXPECT_NO_THROW(validate_ladder(spec));
        for (const auto& [w, h] : {std::pair{3840, 2160}, std::pair{1920, 1080}, std::pair{1280, 720},
                                   std::pair{640, 480}, std::pair{320, 240}, std::pair{1080, 1920},
                                   std::pair{720, 1280}, std::pair{1080, 1080}}) {
            const auto fitted = fit_to_source(spec, w, h);
            EXPECT_FALSE(fitted.ladder.rungs.empty()) << w << "x" << h;
            for (const auto& r : fitted.ladder.rungs) {
                EXPECT_LE(r.width, w) << r.name;
                EXPECT_LE(r.height, h) << r.name;
                EXPECT_EQ(r.width % 2, 0) << r.name;
                EXPECT_EQ(r.height % 2, 0) << r.name;
            }
        }
        // The presets' "height" is the short side: on a portrait source it is the width.
        for (const auto& r : fit_to_source(spec, 2160, 3840).ladder.rungs) {
            const auto named = std::find_if(spec.rungs.begin(), spec.rungs.end(),
                                            [&](const RungSpec& s) { return s.name == r.name; });
            ASSERT_NE(named, spec.rungs.end()) << r.name;
            if (named->width == 0) {
                EXPECT_EQ(r.width, named->height) << r.name;
            }
        }
    }
    RecordProperty("presets_loaded", loaded);
    std::cout << "[ INFO     ] " << loaded << " preset file(s) loaded from " << folder << "\n";
}

// ---------------------------------------------------------------- --rung arguments

TEST(RungArgument, FullForm) {
    const RungSpec r = parse_rung_argument("720p=1280x720@2500");
    EXPECT_EQ(r.name, "720p");
    EXPECT_EQ(r.width, 1280);
    EXPECT_EQ(r.height, 720);
    EXPECT_EQ(r.bitrate_kbps, 2500);
    EXPECT_EQ(r.maxrate_kbps, 0);
    EXPECT_EQ(r.bufsize_kbps, 0);
}

TEST(RungArgument, DerivedWidth) {
    const RungSpec r = parse_rung_argument("720p=x720@2500");
    EXPECT_EQ(r.name, "720p");
    EXPECT_EQ(r.width, 0);
    EXPECT_EQ(r.height, 720);
    EXPECT_EQ(r.bitrate_kbps, 2500);

    const RungSpec zero = parse_rung_argument("540p=0x540@1200");
    EXPECT_EQ(zero.width, 0);
    EXPECT_EQ(zero.height, 540);
}

TEST(RungArgument, KbpsSuffixIsAccepted) {
    const RungSpec r = parse_rung_argument("hi=1920x1080@4500k");
    EXPECT_EQ(r.bitrate_kbps, 4500);
}

TEST(RungArgument, InvalidForms) {
    for (const std::string arg :
         {"", "720p", "720p=", "720p=1280x720", "=1280x720@2500", "720p=1280*720@2500", "720p=1280x@2500",
          "720p=-1280x720@2500", "720p=1280x-720@2500", "720p=1280x720@", "720p=1280x720@2.5",
          "720p=1280x720@-5", "720p=1280x720@2500kbps", "720p = 1280x720@2500", "720p=1280x720@2500 ",
          "a=b=1280x720@2500", "720p=1280X720@2500"}) {
        SCOPED_TRACE("'" + arg + "'");
        const auto msg = input_error_of([&] { parse_rung_argument(arg); });
        if (!arg.empty()) {
            EXPECT_NE(msg.find(arg), std::string::npos) << msg;
        }
    }
}

TEST(RungArgument, UnsafeNameIsCaughtByValidation) {
    // The argument parser takes any name; validate_ladder must refuse it.
    const RungSpec r = parse_rung_argument("../x=1280x720@2500");
    EXPECT_EQ(r.name, "../x");
    input_error_of([&] { validate_ladder(LadderSpec{{r}}); });
}

// Numbers too large for an int are bad usage (exit 2), not an internal error
// from std::stoi.
TEST(RungArgument, HugeNumbersAreInputErrors) {
    for (const std::string arg : {"720p=1280x720@99999999999", "720p=99999999999x720@2500",
                                  "720p=1280x99999999999@2500"}) {
        SCOPED_TRACE(arg);
        input_error_of([&] { parse_rung_argument(arg); });
    }
}

// ---------------------------------------------------------------- validate_ladder

TEST(ValidateLadder, AcceptsTypicalLadders) {
    EXPECT_NO_THROW(validate_ladder(default_ladder()));
    EXPECT_NO_THROW(validate_ladder(LadderSpec{{{"a", 16, 16, 1, 0, 0}}}));
    EXPECT_NO_THROW(validate_ladder(LadderSpec{{{"b", 8192, 8192, 200000, 200000, 400000}}}));
    EXPECT_NO_THROW(validate_ladder(LadderSpec{{{"c", 0, 720, 2500, 2500, 0}}}));  // maxrate == bitrate
}

TEST(ValidateLadder, RejectsEmptyLadder) { input_error_of([] { validate_ladder(LadderSpec{}); }); }

TEST(ValidateLadder, RejectsNulInName) {
    const std::string name("a\0b", 3);
    input_error_of([&] { validate_ladder(LadderSpec{{{name, 0, 720, 2500, 0, 0}}}); });
}

TEST(ValidateLadder, RejectsOutOfRangeNumbers) {
    const std::vector<RungSpec> bad = {
        {"a", 0, 720, 200001, 0, 0},  // bitrate too high
        {"a", 8194, 720, 2500, 0, 0},  // width too large
        {"a", 14, 720, 2500, 0, 0},    // width too small
        {"a", 0, 14, 2500, 0, 0},      // height too small
    };
    for (const auto& r : bad) {
        SCOPED_TRACE(std::to_string(r.width) + "x" + std::to_string(r.height) + "@" +
                     std::to_string(r.bitrate_kbps));
        input_error_of([&] { validate_ladder(LadderSpec{{r}}); });
    }
}

TEST(LadderJsonCrf, ARungMayAskForAConstantQualityWithinSvtAv1sRange) {
    const auto spec = parse_ladder_json(R"({"rungs": [{"name": "720p", "height": 720, "bitrate_kbps": 2500, "crf": 35},
                                                      {"name": "360p", "height": 360, "bitrate_kbps": 600}]})",
                                        "test");
    EXPECT_EQ(spec.rungs[0].crf, 35);
    EXPECT_EQ(spec.rungs[1].crf, -1);
    for (const char* crf : {"64", "-2"}) {
        try {
            (void)parse_ladder_json(
                std::string(R"({"rungs": [{"name": "720p", "height": 720, "bitrate_kbps": 2500, "crf": )") + crf + "}]}",
                "bad.json");
            ADD_FAILURE() << "crf " << crf << " accepted";
        } catch (const ladder::engine::InputError& e) {
            EXPECT_NE(std::string(e.what()).find("crf " + std::string(crf) + " must be within 0..63"), std::string::npos)
                << e.what();
        }
    }
}

TEST(LadderFingerprint, RateRungsKeepTheirTextAndACrfIsAddedOnlyWhereSet) {
    LadderSpec spec;
    spec.rungs = {RungSpec{"720p", 1280, 720, 2500, 0, 0}, RungSpec{"360p", 640, 360, 600, 900, 1200}};
    EXPECT_EQ(ladder::engine::ladder_fingerprint(spec), "|720p=1280x720@2500/0/0|360p=640x360@600/900/1200");
    spec.rungs[1].crf = 40;
    EXPECT_EQ(ladder::engine::ladder_fingerprint(spec), "|720p=1280x720@2500/0/0|360p=640x360@600/900/1200/crf40");
}
