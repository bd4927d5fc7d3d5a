#pragma once
// The input corpus's tools (tests/e2e/input_corpus_test.cpp): generators
// that make odd inputs with the ffmpeg CLI, and readers that measure them
// and ladder's outputs with ffprobe / ffmpeg filters, independent of ladder.
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "media_tools.hpp"

namespace ladder::test {

// ---------------------------------------------------------------- generators

// Runs the ffmpeg CLI (quiet, overwriting); throws when it fails.
void ffmpeg(std::vector<std::string> args);
std::string testsrc(const std::string& size, const std::string& rate, double seconds);
std::string sine(double seconds, int frequency = 440);
inline const std::vector<std::string> kH264{"-c:v", "libx264", "-preset", "veryfast", "-g", "25"};
std::vector<std::string> join(std::initializer_list<std::vector<std::string>> parts);
// A plain H.264 (+ AAC) clip: the base most entries start from.
void plain_clip(const std::filesystem::path& file, const std::string& size, const std::string& rate, double seconds,
                bool audio, std::vector<std::string> extra = {});

// ----------------------------------------------------------------- readers

nlohmann::json ffprobe_json(const std::vector<std::string>& args, const std::filesystem::path& file);
// The first stream of a kind ("v:0", "a:0"), with side data.
nlohmann::json stream_of(const std::filesystem::path& file, const std::string& selector);
double number(const nlohmann::json& j, const char* key, double fallback = 0);
double format_start_time(const std::filesystem::path& file);
// Frames the source really decodes to (an independent count).
long source_frames(const std::filesystem::path& file);
// Seconds between consecutive video frames, in presentation order.
std::vector<double> frame_intervals(const std::filesystem::path& file);
// Where the decodable part of the source ends, in frames at fps.
long decodable_timeline_frames(const std::filesystem::path& file, double fps);

struct Idet {
    int tff = 0, bff = 0, progressive = 0;
};
// ffmpeg's idet filter: how many frames look interlaced (combing) or not.
Idet interlace_detection(const std::filesystem::path& file);
// Mean volume (dB) of the first audio stream, by ffmpeg's volumedetect.
double mean_volume_db(const std::filesystem::path& file);

struct VideoFacts {
    int width = 0, height = 0;
    long frames = 0;
    std::string pix_fmt, profile, transfer, primaries, sar, field_order;
    double start = 0, duration = 0;
    bool has_display_matrix = false;
};
VideoFacts video_facts(const std::filesystem::path& file);

}  // namespace ladder::test
