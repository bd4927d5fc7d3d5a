// Reading report.json back for `ladder report`: the hand-built report, a
// partial report of a failed run, and every way a file can fail to be a
// report (not JSON, a missing array or key, a wrong type, a chunk pointing
// at a rung or slot the report does not have), each with a message that
// says what is wrong.
#include "cli/report_view.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "report_fixture.hpp"

namespace ladder::test {
namespace {

using nlohmann::json;

// The message of the ReportError `report` raises; fails the test if none.
std::string error_of(const json& report) {
    try {
        cli::report_view_from_json(report);
    } catch (const cli::ReportError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error for " << report.dump();
    return {};
}

TEST(ReportView, ReadsTheHandBuiltReport) {
    const cli::ReportView v = cli::report_view_from_json(hand_built_report());
    EXPECT_EQ(v.input, "clip <1>'s.mp4");
    EXPECT_DOUBLE_EQ(v.wall_seconds, 8.0);
    ASSERT_TRUE(v.decode_seconds.has_value());
    EXPECT_DOUBLE_EQ(*v.decode_seconds, 1.25);
    ASSERT_EQ(v.rungs.size(), 2u);
    EXPECT_EQ(v.rungs[1].name, "a<b&\"c\"");
    EXPECT_EQ(v.rungs[0].width, 1280);
    ASSERT_EQ(v.slots.size(), 3u);
    EXPECT_EQ(v.slots[2].label, "gpu0:nvenc");
    ASSERT_EQ(v.chunks.size(), 6u);
    EXPECT_EQ(v.chunks[1].rung, 1u);
    EXPECT_EQ(v.chunks[1].slot, 1u);  // cpu1:svt, by position in "slots"
    EXPECT_DOUBLE_EQ(v.chunks[4].end_seconds, 6.5);
    ASSERT_EQ(v.retries.size(), 1u);
    EXPECT_EQ(v.retries[0].slot, "cpu1:svt");
    EXPECT_EQ(v.retries[0].cause, "crash");
}

TEST(ReportView, ReadsABudgetRunsCrfsAndPasses) {
    json report = hand_built_report();
    const cli::ReportView older = cli::report_view_from_json(report);
    EXPECT_TRUE(older.rate_control.empty());
    EXPECT_FALSE(older.source_passes.has_value());
    EXPECT_TRUE(older.rungs[0].chunk_crf.empty());
    report["rate_control"] = "budget";
    report["source_passes"] = 7;
    report["rungs"][0]["crf_search"] = {{"chunk_crf", {19, 21, 19}}, {"verdict", "mixed"}};
    const cli::ReportView v = cli::report_view_from_json(report);
    EXPECT_EQ(v.rate_control, "budget");
    EXPECT_EQ(v.source_passes, 7);
    EXPECT_EQ(v.rungs[0].chunk_crf, (std::vector<std::int64_t>{19, 21, 19}));
    EXPECT_EQ(v.rungs[0].crf_verdict, "mixed");
    report["rungs"][0]["crf_search"]["chunk_crf"] = {19, "x"};
    EXPECT_NE(error_of(report).find("rungs[0]: crf_search: chunk_crf[1] is not an integer"), std::string::npos);
}

TEST(ReportView, ReadsAPartialReport) {
    // What ReportCollector::partial_report_json leaves out of a failed run's report.
    json report = hand_built_report();
    report["ok"] = false;
    report["partial"] = true;
    report["error"] = "rung 720p: chunk 1 failed on all 3 tries";
    report.erase("decode_seconds");
    for (auto& r : report["rungs"])
        for (const char* key : {"width", "height", "bitrate_kbps", "average_kbps"}) r.erase(key);
    for (auto& s : report["slots"]) s.erase("encoder");
    const cli::ReportView v = cli::report_view_from_json(report);
    EXPECT_FALSE(v.ok);
    EXPECT_TRUE(v.partial);
    EXPECT_FALSE(v.decode_seconds.has_value());
    EXPECT_FALSE(v.rungs[0].width.has_value());
    EXPECT_FALSE(v.rungs[0].average_kbps.has_value());
    EXPECT_TRUE(v.slots[0].encoder.empty());
}

TEST(ReportView, InvalidJsonIsAnError) {
    try {
        cli::parse_report("{\"chunks\": [");
        FAIL() << "no error";
    } catch (const cli::ReportError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("not JSON: parse error", 0), 0u) << e.what();
        EXPECT_EQ(std::string(e.what()).find("[json.exception"), std::string::npos) << e.what();
    }
    EXPECT_THROW(cli::parse_report(""), cli::ReportError);
    EXPECT_THROW(cli::parse_report("hello"), cli::ReportError);
}

TEST(ReportView, MissingOrWrongKeysAreErrors) {
    EXPECT_EQ(error_of(json::array()), "not a ladder report: the top level is not a JSON object");
    EXPECT_EQ(error_of(json{{"name", "x"}}), "not a ladder report: no 'chunks' array");

    json no_chunks = hand_built_report();
    no_chunks.erase("chunks");
    EXPECT_EQ(error_of(no_chunks), "not a ladder report: no 'chunks' array");

    json chunks_object = hand_built_report();
    chunks_object["chunks"] = json::object();
    EXPECT_EQ(error_of(chunks_object), "not a ladder report: no 'chunks' array");

    json no_slots = hand_built_report();
    no_slots.erase("slots");
    EXPECT_EQ(error_of(no_slots), "not a ladder report: no 'slots' array");

    json no_wall = hand_built_report();
    no_wall.erase("wall_seconds");
    EXPECT_EQ(error_of(no_wall), "not a ladder report: 'wall_seconds' is missing or not a number");

    json no_end = hand_built_report();
    no_end["chunks"][2].erase("end_seconds");
    EXPECT_EQ(error_of(no_end), "not a ladder report: chunks[2]: 'end_seconds' is missing or not a number");

    json text_frames = hand_built_report();
    text_frames["chunks"][0]["frames"] = "50";
    EXPECT_EQ(error_of(text_frames), "not a ladder report: chunks[0]: 'frames' is missing or not an integer");

    json nameless = hand_built_report();
    nameless["rungs"][1].erase("name");
    EXPECT_EQ(error_of(nameless), "not a ladder report: rungs[1]: 'name' is missing or not a string");

    json labelless = hand_built_report();
    labelless["slots"][0]["label"] = 3;
    EXPECT_EQ(error_of(labelless), "not a ladder report: slots[0]: 'label' is missing or not a string");
}

TEST(ReportView, ChunksMustPointAtTheReportsRungsAndSlots) {
    json bad_rung = hand_built_report();
    bad_rung["chunks"][3]["rung"] = 2;
    EXPECT_EQ(error_of(bad_rung), "not a ladder report: chunks[3]: 'rung' 2 is not a rung of the report (it has 2)");

    json bad_slot = hand_built_report();
    bad_slot["chunks"][5]["slot"] = "gpu7:qsv";
    EXPECT_EQ(error_of(bad_slot), "not a ladder report: chunks[5]: slot 'gpu7:qsv' is not in 'slots'");

    json backwards = hand_built_report();
    backwards["chunks"][0]["end_seconds"] = -1.0;
    EXPECT_EQ(error_of(backwards), "not a ladder report: chunks[0]: 'end_seconds' is negative");

    json reversed = hand_built_report();
    reversed["chunks"][1]["start_seconds"] = 1.6;
    EXPECT_EQ(error_of(reversed), "not a ladder report: chunks[1]: 'end_seconds' is before 'start_seconds'");

    json twice = hand_built_report();
    twice["slots"][2]["label"] = "cpu0:svt";
    EXPECT_EQ(error_of(twice), "not a ladder report: slots[2]: slot 'cpu0:svt' is listed twice");
}

TEST(ReportView, ReadsAFileAndSaysWhyItCannot) {
    const auto dir = std::filesystem::temp_directory_path() / ("ladder_report_view_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir / "report.json") << hand_built_report().dump(2);
    }
    EXPECT_EQ(cli::read_report(dir / "report.json").chunks.size(), 6u);
    try {
        cli::read_report(dir / "missing.json");
        FAIL() << "no error";
    } catch (const cli::ReportError& e) {
        EXPECT_STREQ(e.what(), "cannot open: No such file or directory");
    }
    EXPECT_THROW(cli::read_report(dir), cli::ReportError);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ladder::test
