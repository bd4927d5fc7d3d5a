#include "media_tools.hpp"

#include "run_cache.hpp"

#include "av/input_file.hpp"
#include "mux/av1_sequence_header.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace ladder::test {

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// One scratch folder per test process, removed when the process exits
// (unless LADDER_KEEP_TEST_FILES is set, to look at the outputs).
struct ScratchRoot {
    fs::path path;
    ScratchRoot() : path(fs::temp_directory_path() / ("ladder-e2e-" + std::to_string(::getpid()))) {
        fs::create_directories(path);
    }
    ~ScratchRoot() {
        std::error_code ec;
        if (!std::getenv("LADDER_KEEP_TEST_FILES")) fs::remove_all(path, ec);
    }
};

fs::path scratch_root() {
    static const ScratchRoot root;
    return root.path;
}

// The stacks of every thread of a process the watchdog is about to kill, so
// a hang in CI says where it hung (empty where gdb is not installed).
std::string stacks_of(pid_t pid) {
    if (::access("/usr/bin/gdb", X_OK) != 0) return {};
    const ProcessResult gdb = run_process(
        {"/usr/bin/gdb", "-nx", "-batch", "-p", std::to_string(pid), "-ex", "thread apply all bt"}, {}, 60);
    return "\nwatchdog: the stacks of the hung process (gdb):\n" + gdb.out + gdb.err;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                          int timeout_seconds) {
    static std::mutex mu;
    static int counter = 0;
    fs::path out_file, err_file;
    {
        std::lock_guard lock(mu);
        const int n = counter++;
        out_file = scratch_root() / ("proc" + std::to_string(n) + ".out");
        err_file = scratch_root() / ("proc" + std::to_string(n) + ".err");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> env;
    for (char** e = environ; *e; ++e) env.push_back(*e);
    for (const auto& e : extra_env) env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
    int status = 0;
    bool timed_out = false;
    std::string hung_stacks;
    if (timeout_seconds > 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
        while (waitpid(pid, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() >= deadline) {
                timed_out = true;
                hung_stacks = stacks_of(pid);
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    } else {
        waitpid(pid, &status, 0);
    }
    ProcessResult r;
    r.timed_out = timed_out;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out_file);
    r.err = slurp(err_file) + hung_stacks;
    fs::remove(out_file);
    fs::remove(err_file);
    return r;
}

ProcessResult run_ladder(const std::vector<std::string>& args, const std::vector<std::string>& extra_env,
                         int timeout_seconds) {
    std::vector<std::string> argv{LADDER_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, extra_env, timeout_seconds);
}

ProcessResult run_ladder_shared(const std::vector<std::string>& args, const fs::path& out_dir) {
    std::vector<std::string> key{file_identity(LADDER_BINARY)};
    for (const std::string& a : args) {
        std::error_code ec;
        if (a == out_dir.string()) key.push_back("<out>");
        else if (fs::is_regular_file(a, ec)) key.push_back("<file " + content_identity(a) + ">");
        else key.push_back(a);
    }
    const fs::path entry = cache_entry("encodes", key);
    if (restore_from_cache(entry, out_dir)) return {0, "", ""};
    ProcessResult r = run_ladder(args);
    if (r.exit_code == 0) publish_to_cache(out_dir, entry);
    return r;
}

int count_lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

int spawn_ladder(const std::vector<std::string>& args, const fs::path& stderr_file) {
    std::vector<std::string> argv{LADDER_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargs;
    for (auto& a : argv) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const std::string err_path = stderr_file.empty() ? "/dev/null" : stderr_file.string();
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, cargs[0], &actions, nullptr, cargs.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
    return pid;
}

int journaled_chunks(const fs::path& outdir) {
    int n = 0;
    std::error_code ec;
    // The run writes while this reads: a file that goes mid-walk ends the
    // walk, and the caller polls again.
    for (fs::recursive_directory_iterator it(outdir / ".ladder", ec), end; !ec && it != end; it.increment(ec))
        n += it->path().extension() == ".bin";
    return n;
}

int wait_exit(int pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::vector<double> video_packet_sizes(const fs::path& file) {
    const ProcessResult r = run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                         "packet=size", "-of", "csv=p=0", file.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<double> sizes;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) sizes.push_back(std::stod(line));
    return sizes;
}

fs::path fresh_dir(const std::string& name) {
    fs::path p = scratch_root() / name;
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

fs::path make_clip(const std::string& name, const ClipSpec& s) {
    static std::mutex mu;
    std::lock_guard lock(mu);
    fs::path out = scratch_root() / "clips" / (name + ".mp4");
    if (fs::exists(out)) return out;
    fs::create_directories(out.parent_path());
    const std::string size = std::to_string(s.width) + "x" + std::to_string(s.height);
    const std::string dur = std::to_string(s.seconds);
    std::string vf = "testsrc2=size=" + size + ":rate=" + s.rate + ":duration=" + dur;
    if (!s.extra_video_filter.empty()) vf += "," + s.extra_video_filter;
    std::vector<std::string> argv{"ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", vf};
    if (s.audio) {
        for (std::string a : {"-f", "lavfi", "-i"}) argv.push_back(a);
        argv.push_back("sine=frequency=440:sample_rate=48000:duration=" + dur);
    }
    for (std::string a : {"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "30"})
        argv.push_back(a);
    if (s.audio)
        for (std::string a : {"-c:a", "aac", "-b:a", "128k", "-ac", "2"}) argv.push_back(a);
    argv.push_back("-y");
    std::vector<std::string> key{program_identity("ffmpeg")};
    key.insert(key.end(), argv.begin(), argv.end());
    const fs::path entry = cache_entry("clips", key);
    if (restore_from_cache(entry, out)) return out;
    argv.push_back(out.string());
    ProcessResult r = run_process(argv);
    if (r.exit_code != 0) throw std::runtime_error("ffmpeg could not make clip " + name + ": " + r.err);
    publish_to_cache(out, entry);
    return out;
}

FileFacts probe(const fs::path& file) {
    ProcessResult r = run_process({"ffprobe", "-v", "error", "-count_frames", "-count_packets", "-show_streams",
                                   "-show_format", "-of", "json", file.string()});
    if (r.exit_code != 0) throw std::runtime_error("ffprobe failed on " + file.string() + ": " + r.err);
    auto j = nlohmann::json::parse(r.out);
    FileFacts facts;
    facts.format_name = j["format"].value("format_name", "");
    facts.duration = std::stod(j["format"].value("duration", "0"));
    for (const auto& s : j["streams"]) {
        StreamFacts f;
        f.codec = s.value("codec_name", "");
        f.width = s.value("width", 0);
        f.height = s.value("height", 0);
        f.frames = std::stol(s.value("nb_read_frames", "0"));
        f.packets = std::stol(s.value("nb_read_packets", "0"));
        f.duration = std::stod(s.value("duration", "0"));
        f.pix_fmt = s.value("pix_fmt", "");
        if (s.value("codec_type", "") == "video") facts.video.push_back(f);
        if (s.value("codec_type", "") == "audio") facts.audio.push_back(f);
    }
    return facts;
}

std::vector<long> key_frame_indexes(const fs::path& file) {
    ProcessResult r = run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                   "packet=flags,pts", "-of", "json", file.string()});
    if (r.exit_code != 0) throw std::runtime_error("ffprobe failed on " + file.string());
    auto j = nlohmann::json::parse(r.out);
    std::vector<std::pair<long, bool>> packets;
    for (const auto& p : j["packets"]) packets.emplace_back(p.value("pts", 0L), p.value("flags", "").find('K') == 0);
    std::sort(packets.begin(), packets.end());
    std::vector<long> keys;
    for (std::size_t i = 0; i < packets.size(); ++i)
        if (packets[i].second) keys.push_back(static_cast<long>(i));
    return keys;
}

std::string decode_errors(const fs::path& file) {
    ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-v", "error", "-c:v", "libdav1d", "-i", file.string(),
                                   "-map", "0:v:0", "-f", "null", "-"});
    if (r.exit_code != 0) return "ffmpeg exit " + std::to_string(r.exit_code) + ": " + r.err;
    return r.err;
}

std::string same_colour_as(const fs::path& file) {
    ProcessResult r = run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                   "stream=color_space,color_range,color_primaries,color_transfer", "-of", "json",
                                   file.string()});
    if (r.exit_code != 0) throw std::runtime_error("ffprobe failed on " + file.string() + ": " + r.err);
    const auto streams = nlohmann::json::parse(r.out)["streams"];
    if (streams.empty()) throw std::runtime_error("no video stream in " + file.string());
    // ffprobe's names are the ones setparams takes.
    const auto tag = [&](const char* field) { return streams[0].value(field, std::string("unknown")); };
    return "setparams=colorspace=" + tag("color_space") + ":range=" + tag("color_range") +
           ":color_primaries=" + tag("color_primaries") + ":color_trc=" + tag("color_transfer");
}

namespace {

// [0:v] the encoded file, [1:v] the source scaled to its size, both with
// the encoded file's colour labels, into one comparison filter. The source
// is scaled as ladder scales its rungs (bit-exact rounding,
// av/bitexact_scaling.hpp), so a rung is measured against its own input.
std::string comparison_graph(const fs::path& file, int width, int height, const std::string& metric) {
    const std::string colour = same_colour_as(file);
    return "[1:v]scale=" + std::to_string(width) + ":" + std::to_string(height) +
           ":flags=bicubic+accurate_rnd+bitexact,format=yuv420p," + colour + "[ref];[0:v]format=yuv420p," + colour +
           "[enc];[enc][ref]" + metric;
}

}  // namespace

double psnr_against_source(const fs::path& file, const fs::path& source, int width, int height) {
    const std::string graph = comparison_graph(file, width, height, "psnr");
    ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-nostats", "-c:v", "libdav1d", "-i", file.string(), "-i",
                                   source.string(), "-filter_complex", graph, "-f", "null", "-"});
    static const std::regex avg(R"(PSNR .* average:([0-9.]+|inf))");
    std::smatch m;
    if (r.exit_code != 0 || !std::regex_search(r.err, m, avg))
        throw std::runtime_error("PSNR measurement failed for " + file.string() + ": " + r.err);
    return m[1] == "inf" ? 100.0 : std::stod(m[1]);
}

std::vector<double> psnr_stats_file(const fs::path& stats) {
    std::vector<double> out;
    std::ifstream in(stats);
    static const std::regex frame(R"(psnr_avg:([0-9.]+|inf))");
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_search(line, m, frame)) out.push_back(m[1] == "inf" ? 100.0 : std::stod(m[1]));
    }
    return out;
}

std::vector<double> psnr_per_frame(const fs::path& file, const fs::path& source, int width, int height) {
    const fs::path stats = scratch_root() / ("psnr-" + file.parent_path().filename().string() + "-" +
                                             file.filename().string() + ".log");
    const std::string graph = comparison_graph(file, width, height, "psnr=stats_file=" + stats.string());
    ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-nostats", "-c:v", "libdav1d", "-i", file.string(), "-i",
                                   source.string(), "-filter_complex", graph, "-f", "null", "-"});
    if (r.exit_code != 0) throw std::runtime_error("PSNR measurement failed for " + file.string() + ": " + r.err);
    std::vector<double> out = psnr_stats_file(stats);
    fs::remove(stats);
    return out;
}

std::vector<std::string> av1c_vs_inband_differences(const fs::path& file) {
    av::InputFile in(file.string());
    const int v = in.best_stream(AVMEDIA_TYPE_VIDEO);
    if (v < 0) throw std::runtime_error("no video in " + file.string());
    const AVCodecParameters* par = in.get()->streams[v]->codecpar;
    // av1C: 4 bytes of fields, then the configOBUs.
    if (par->extradata_size <= 4) throw std::runtime_error("empty av1C in " + file.string());
    auto from_av1c = mux::parse_sequence_header({par->extradata + 4, static_cast<std::size_t>(par->extradata_size - 4)});
    av::PacketPtr pkt = av::make_packet();
    while (in.read(pkt.get()) && pkt->stream_index != v) av_packet_unref(pkt.get());
    auto in_band = mux::parse_sequence_header({pkt->data, static_cast<std::size_t>(pkt->size)});
    if (!from_av1c || !in_band) throw std::runtime_error("sequence header missing in " + file.string());
    return mux::sequence_header_differences(*from_av1c, *in_band, mux::SpliceCheck::strict);
}

bool moov_before_mdat(const fs::path& file) {
    // Walk the top-level ISO-BMFF boxes: size (32-bit, or 64-bit when 1) + type.
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> order;
    for (;;) {
        unsigned char hdr[8];
        if (!in.read(reinterpret_cast<char*>(hdr), 8)) break;
        std::uint64_t size = (std::uint64_t(hdr[0]) << 24) | (hdr[1] << 16) | (hdr[2] << 8) | hdr[3];
        std::string type(reinterpret_cast<char*>(hdr + 4), 4);
        std::uint64_t header = 8;
        if (size == 1) {
            unsigned char big[8];
            if (!in.read(reinterpret_cast<char*>(big), 8)) break;
            size = 0;
            for (unsigned char b : big) size = (size << 8) | b;
            header = 16;
        }
        order.push_back(type);
        if (size < header) break;
        in.seekg(static_cast<std::streamoff>(size - header), std::ios::cur);
    }
    auto moov = std::find(order.begin(), order.end(), "moov");
    auto mdat = std::find(order.begin(), order.end(), "mdat");
    return moov != order.end() && mdat != order.end() && moov < mdat;
}

ProcessResult run_player(const std::string& script, const fs::path& dir, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"node", std::string(LADDER_SOURCE_DIR) + "/tests/player/" + script, dir.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--timeout-ms", "90000"});
    ProcessResult r = run_process(argv);
    std::printf("%s", r.out.c_str());
    return r;
}

nlohmann::json player_result(const std::string& output) {
    const std::string marker = "PLAYER-RESULT ";
    const auto pos = output.rfind(marker);
    if (pos == std::string::npos) return nullptr;
    const auto end = output.find('\n', pos);
    return nlohmann::json::parse(output.substr(pos + marker.size(), end - pos - marker.size()));
}

}  // namespace ladder::test
