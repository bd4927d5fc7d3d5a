#include "corpus_media.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <stdexcept>

namespace ladder::test {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- generators

void ffmpeg(std::vector<std::string> args) {
    std::vector<std::string> argv{"ffmpeg", "-hide_banner", "-nostdin", "-v", "error", "-y"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = run_process(argv);
    if (r.exit_code != 0) throw std::runtime_error("ffmpeg could not make a corpus input: " + r.err);
}

std::string testsrc(const std::string& size, const std::string& rate, double seconds) {
    return "testsrc2=size=" + size + ":rate=" + rate + ":duration=" + std::to_string(seconds);
}

std::string sine(double seconds, int frequency) {
    return "sine=frequency=" + std::to_string(frequency) + ":sample_rate=48000:duration=" + std::to_string(seconds);
}

std::vector<std::string> join(std::initializer_list<std::vector<std::string>> parts) {
    std::vector<std::string> all;
    for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    return all;
}

// A plain H.264 (+ AAC) clip: the base most entries start from.
void plain_clip(const fs::path& file, const std::string& size, const std::string& rate, double seconds, bool audio,
                std::vector<std::string> extra) {
    std::vector<std::string> a{"-f", "lavfi", "-i", testsrc(size, rate, seconds)};
    if (audio) a.insert(a.end(), {"-f", "lavfi", "-i", sine(seconds)});
    a.insert(a.end(), kH264.begin(), kH264.end());
    a.insert(a.end(), {"-pix_fmt", "yuv420p"});
    if (audio) a.insert(a.end(), {"-c:a", "aac", "-ac", "2"});
    a.insert(a.end(), extra.begin(), extra.end());
    a.push_back(file.string());
    ffmpeg(a);
}

// ----------------------------------------------------------------- readers

nlohmann::json ffprobe_json(const std::vector<std::string>& args, const fs::path& file) {
    std::vector<std::string> argv{"ffprobe", "-v", "error", "-of", "json"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back(file.string());
    ProcessResult r = run_process(argv);
    if (r.exit_code != 0) throw std::runtime_error("ffprobe failed on " + file.string() + ": " + r.err);
    return nlohmann::json::parse(r.out);
}

// The first stream of a kind ("v:0", "a:0"), with side data.
nlohmann::json stream_of(const fs::path& file, const std::string& selector) {
    auto j = ffprobe_json({"-select_streams", selector, "-show_streams"}, file);
    if (j["streams"].empty()) return nlohmann::json::object();
    return j["streams"][0];
}

double number(const nlohmann::json& j, const char* key, double fallback) {
    if (!j.contains(key)) return fallback;
    return j[key].is_string() ? std::stod(j[key].get<std::string>()) : j[key].get<double>();
}

double format_start_time(const fs::path& file) {
    auto j = ffprobe_json({"-show_format"}, file);
    return number(j["format"], "start_time");
}

// Frames the source really decodes to (an independent count).
long source_frames(const fs::path& file) {
    auto j = ffprobe_json({"-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames"}, file);
    return std::stol(j["streams"][0].value("nb_read_frames", "0"));
}

// Seconds between consecutive video frames, in presentation order
// (fragmented MP4 leaves packet durations to the next fragment).
std::vector<double> frame_intervals(const fs::path& file) {
    auto j = ffprobe_json({"-select_streams", "v:0", "-show_entries", "packet=pts_time"}, file);
    std::vector<double> pts;
    for (const auto& p : j["packets"]) pts.push_back(number(p, "pts_time"));
    std::sort(pts.begin(), pts.end());
    std::vector<double> d;
    for (std::size_t i = 1; i < pts.size(); ++i) d.push_back(pts[i] - pts[i - 1]);
    return d;
}

// Where the decodable part of the source ends, in frames at fps: the last
// decodable frame's timestamp plus one frame (B-frames make this more than
// the count of decodable frames when the data stops mid-GOP).
long decodable_timeline_frames(const fs::path& file, double fps) {
    auto j = ffprobe_json({"-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time"}, file);
    double last = 0;
    for (const auto& f : j["frames"]) last = std::max(last, number(f, "best_effort_timestamp_time"));
    return std::lround(last * fps) + 1;
}

// ffmpeg's idet filter: how many frames look interlaced (combing) or not.
Idet interlace_detection(const fs::path& file) {
    ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-nostats", "-i", file.string(), "-map", "0:v:0", "-vf",
                                   "idet", "-f", "null", "-"});
    static const std::regex re(R"(Multi frame detection: TFF:\s*(\d+) BFF:\s*(\d+) Progressive:\s*(\d+))");
    // FFmpeg 7 prints the summary once per filter graph it configured, the
    // first one (a graph torn down before any frame) all zeros: the last
    // summary is the one that saw the frames.
    std::smatch last;
    for (auto it = std::sregex_iterator(r.err.begin(), r.err.end(), re); it != std::sregex_iterator(); ++it) last = *it;
    if (last.empty()) throw std::runtime_error("idet failed on " + file.string() + ": " + r.err);
    return {std::stoi(last[1]), std::stoi(last[2]), std::stoi(last[3])};
}

// Mean volume (dB) of the first audio stream, by ffmpeg's volumedetect.
double mean_volume_db(const fs::path& file) {
    ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-nostats", "-i", file.string(), "-map", "0:a:0", "-af",
                                   "volumedetect", "-f", "null", "-"});
    static const std::regex re(R"(mean_volume:\s*(-?[0-9.]+|-inf) dB)");
    std::smatch m;
    if (!std::regex_search(r.err, m, re)) throw std::runtime_error("volumedetect failed on " + file.string());
    return m[1] == "-inf" ? -200.0 : std::stod(m[1]);
}

VideoFacts video_facts(const fs::path& file) {
    VideoFacts f;
    FileFacts p = probe(file);
    if (p.video.empty()) throw std::runtime_error("no video in " + file.string());
    f.frames = p.video[0].frames;
    f.duration = p.video[0].duration;
    auto s = stream_of(file, "v:0");
    f.width = s.value("width", 0);
    f.height = s.value("height", 0);
    f.pix_fmt = s.value("pix_fmt", "");
    f.profile = s.value("profile", "");
    f.transfer = s.value("color_transfer", "");
    f.primaries = s.value("color_primaries", "");
    f.sar = s.value("sample_aspect_ratio", "");
    f.field_order = s.value("field_order", "");
    f.start = number(s, "start_time");
    if (s.contains("side_data_list"))
        for (const auto& sd : s["side_data_list"])
            if (sd.value("side_data_type", "") == "Display Matrix") f.has_display_matrix = true;
    return f;
}

}  // namespace ladder::test
