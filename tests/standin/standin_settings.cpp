#include "tests/standin/standin_settings.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

namespace ladder::standin {

namespace {

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

void read_int(const char* name, int& out, int min) {
    const char* v = env(name);
    if (!v) return;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end || n < min) {
        std::fprintf(stderr, "stand-in driver: %s=%s is not a whole number >= %d; using %d\n", name, v, min, out);
        return;
    }
    out = static_cast<int>(n);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, sep);)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

GpuLoss read_loss() {
    GpuLoss loss;
    const char* v = env("LADDER_STANDIN_LOSE_GPU");
    if (!v) return loss;
    int gpu = -1;
    long long frames = 0;
    if (std::sscanf(v, "%d@%lld", &gpu, &frames) != 2 || gpu < 0 || frames < 0) {
        std::fprintf(stderr, "stand-in driver: LADDER_STANDIN_LOSE_GPU=%s is not ORDINAL@FRAMES; no GPU is lost\n", v);
        return loss;
    }
    loss.gpu = gpu;
    loss.after_frames = frames;
    return loss;
}

Settings read() {
    Settings s;
    read_int("LADDER_STANDIN_GPUS", s.gpus, 0);
    if (const char* v = env("LADDER_STANDIN_GPU_NAME")) s.name = v;
    int memory = static_cast<int>(s.memory_mib);
    read_int("LADDER_STANDIN_GPU_MEMORY_MIB", memory, 1);
    s.memory_mib = static_cast<std::uint64_t>(memory);
    if (const char* v = env("LADDER_STANDIN_NVENC_GPUS")) s.nvenc_gpus = split(v, ',');
    read_int("LADDER_STANDIN_SESSIONS_PER_GPU", s.sessions_per_gpu, 0);
    read_int("LADDER_STANDIN_SESSIONS_PER_SYSTEM", s.sessions_per_system, 0);
    read_int("LADDER_STANDIN_OPEN_MS", s.open_ms, 0);
    read_int("LADDER_STANDIN_ENGINES", s.engines, 1);
    if (const char* v = env("LADDER_STANDIN_PACE")) {
        char* end = nullptr;
        const double fps = std::strtod(v, &end);
        if (std::string(v) == "off") s.pace_fps_1080p = 0;
        else if (std::string(v) == "published") s.pace_fps_1080p = -1;
        else if (!*end && fps > 0) s.pace_fps_1080p = fps;
        else std::fprintf(stderr, "stand-in driver: LADDER_STANDIN_PACE=%s is not published, off or a frame rate\n", v);
    }
    const char* state = env("LADDER_STANDIN_STATE_DIR");
    s.state_dir = state ? state : fmt::format("/tmp/ladder-standin-{}", getuid());
    if (const char* v = env("LADDER_STANDIN_LOG")) s.log_file = v;
    if (const char* v = env("LADDER_STANDIN_THROUGHPUT")) s.throughput = std::string(v) == "1";
    if (const char* v = env("LADDER_STANDIN_KEY_FRAMES")) {
        if (std::string(v) == "first") s.first_key_frame_only = true;
        else if (std::string(v) != "each")
            std::fprintf(stderr, "stand-in driver: LADDER_STANDIN_KEY_FRAMES=%s is not each or first\n", v);
    }
    s.loss = read_loss();
    return s;
}

// Domain, bus, device, function of "DDDD:BB:DD.F" or "DDDDDDDD:BB:DD.F".
bool parse_bus_id(const std::string& id, unsigned& domain, unsigned& bus, unsigned& device, unsigned& function) {
    return std::sscanf(id.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4;
}

}  // namespace

const Settings& settings() {
    static const Settings s = read();
    return s;
}

std::string pci_bus_id(int ordinal) { return fmt::format("00000000:{:02X}:00.0", 0x17 + 0x10 * ordinal); }

int ordinal_of_bus_id(const std::string& bus_id) {
    for (int i = 0; i < settings().gpus; ++i)
        if (same_bus_id(pci_bus_id(i), bus_id)) return i;
    return -1;
}

bool same_bus_id(const std::string& a, const std::string& b) {
    unsigned d1 = 0, b1 = 0, v1 = 0, f1 = 0, d2 = 0, b2 = 0, v2 = 0, f2 = 0;
    return parse_bus_id(a, d1, b1, v1, f1) && parse_bus_id(b, d2, b2, v2, f2) && d1 == d2 && b1 == b2 && v1 == v2 &&
           f1 == f2;
}

void log_event(const std::string& line) {
    const std::string& path = settings().log_file;
    if (path.empty()) return;
    const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const std::string text = line + '\n';
    [[maybe_unused]] const ssize_t n = write(fd, text.data(), text.size());
    close(fd);
}

}  // namespace ladder::standin

namespace ladder::standin {

void report_misuse(int gpu, const std::string& what) {
    log_event(fmt::format("misuse gpu={} pid={} {}", gpu, getpid(), what));
    fmt::print(stderr, "stand-in NVENC: misuse of the API: {}\n", what);
}

}  // namespace ladder::standin
