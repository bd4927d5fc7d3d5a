#include "engine/source/image_sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>
#include <vector>

#include "av/regular_file.hpp"
#include "engine/base/errors.hpp"

namespace ladder::engine {

namespace fs = std::filesystem;

namespace {

// A file name pattern split at its one number directive.
struct NamePattern {
    std::string prefix;
    std::string suffix;
    int width = 0;  // %0Nd: at least N digits, zero-padded
};

// The pattern's file name with %% made literal and its one %d / %0Nd
// found; nullopt when it has none, more than one, or another directive.
std::optional<NamePattern> parse_name_pattern(const std::string& name) {
    NamePattern p;
    bool found = false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        std::string& text = found ? p.suffix : p.prefix;
        if (name[i] != '%') {
            text += name[i];
            continue;
        }
        if (i + 1 < name.size() && name[i + 1] == '%') {
            text += '%';
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        int width = 0;
        while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])))
            width = std::min(width * 10 + (name[j++] - '0'), 64);
        if (found || j >= name.size() || name[j] != 'd') return std::nullopt;
        p.width = width;
        found = true;
        i = j;
    }
    if (!found) return std::nullopt;
    return p;
}

std::string name_of(const NamePattern& p, std::int64_t n) {
    return fmt::format("{}{:0{}}{}", p.prefix, n, p.width, p.suffix);
}

// The frame number a file name stands for, when it is exactly the pattern's
// name for that number (img_007.png is not frame 7 of img_%d.png).
std::optional<std::int64_t> number_in(const NamePattern& p, const std::string& name) {
    if (name.size() <= p.prefix.size() + p.suffix.size() || !name.starts_with(p.prefix) || !name.ends_with(p.suffix))
        return std::nullopt;
    const std::string_view digits =
        std::string_view(name).substr(p.prefix.size(), name.size() - p.prefix.size() - p.suffix.size());
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size() || n < 0 || digits[0] == '-') return std::nullopt;
    if (name_of(p, n) != name) return std::nullopt;
    return n;
}

fs::path folder_of(const fs::path& pattern) {
    return pattern.has_parent_path() ? pattern.parent_path() : fs::path(".");
}

struct FrameFile {
    std::int64_t number = 0;
    std::uintmax_t bytes = 0;
    fs::file_time_type modified{};
};

// A frame that is a FIFO, a device or a folder: the demuxer would block on
// it or fail in the middle of the run (av/regular_file.hpp).
void refuse_unless_regular(const fs::path& pattern, const fs::path& frame) {
    try {
        av::require_regular_file(frame.string(), fmt::format("input {}: frame", pattern.string()));
    } catch (const av::NotARegularFile& e) {
        throw InputError(e.what());
    }
}

std::vector<FrameFile> list_frames(const fs::path& pattern, const NamePattern& name) {
    const fs::path folder = folder_of(pattern);
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        throw InputError(fmt::format("input {}: the folder {} does not exist: check the path", pattern.string(),
                                     folder.string()));
    std::vector<FrameFile> frames;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const auto n = number_in(name, it->path().filename().string());
        if (!n) continue;
        refuse_unless_regular(pattern, it->path());
        frames.push_back(FrameFile{*n, it->file_size(ec), it->last_write_time(ec)});
    }
    if (ec)
        throw InputError(fmt::format("input {}: cannot list the folder {} ({}): check its permissions",
                                     pattern.string(), folder.string(), ec.message()));
    std::sort(frames.begin(), frames.end(), [](const FrameFile& a, const FrameFile& b) { return a.number < b.number; });
    return frames;
}

}  // namespace

fs::path ImageSequence::frame_file(std::int64_t n) const {
    const auto name = parse_name_pattern(pattern.filename().string());
    return pattern.parent_path() / (name ? name_of(*name, n) : pattern.filename().string());
}

bool is_image_sequence(const fs::path& input) {
    std::error_code ec;
    return parse_name_pattern(input.filename().string()).has_value() && !fs::exists(input, ec);
}

ImageSequence scan_image_sequence(const fs::path& pattern) {
    const auto name = parse_name_pattern(pattern.filename().string());
    if (!name)
        throw InputError(fmt::format("input {} is not an image sequence pattern: name the frames with one %d or %0Nd, "
                                     "e.g. img_%05d.png for img_00001.png",
                                     pattern.string()));
    const std::vector<FrameFile> files = list_frames(pattern, *name);
    if (files.empty())
        throw InputError(fmt::format("input {} matches no file in {}: check the pattern ({} is frame 1 of it)",
                                     pattern.string(), folder_of(pattern).string(), name_of(*name, 1)));
    ImageSequence seq;
    seq.pattern = pattern;
    seq.first = files.front().number;
    seq.last = files.back().number;
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (files[i].number != seq.first + static_cast<std::int64_t>(i))
            throw InputError(fmt::format("input {}: frame {} is missing (the sequence runs from {} to {}): restore it, "
                                         "or number the frames without gaps",
                                         pattern.string(), seq.frame_file(seq.first + static_cast<std::int64_t>(i)).string(),
                                         name_of(*name, seq.first), name_of(*name, seq.last)));
        seq.bytes += files[i].bytes;
        seq.newest = std::max(seq.newest, files[i].modified);
    }
    return seq;
}

av::InputSpec image_sequence_input(const ImageSequence& sequence, AVRational frame_rate) {
    av::InputSpec spec(sequence.pattern.string());
    spec.format = "image2";
    // "sequence": the pattern is printf's only (no glob characters), read
    // from the first number present.
    spec.options = {{"pattern_type", "sequence"},
                    {"start_number", std::to_string(sequence.first)},
                    {"framerate", fmt::format("{}/{}", frame_rate.num, frame_rate.den)}};
    return spec;
}

std::uintmax_t input_bytes(const fs::path& input) {
    if (is_image_sequence(input)) return scan_image_sequence(input).bytes;
    std::error_code ec;
    const auto bytes = fs::file_size(input, ec);
    return ec ? 0 : bytes;
}

std::string input_identity(const fs::path& input) {
    std::error_code ec;
    if (is_image_sequence(input)) {
        const ImageSequence seq = scan_image_sequence(input);
        return fmt::format("frames {}-{}|{}|{}", seq.first, seq.last, seq.bytes, seq.newest.time_since_epoch().count());
    }
    const auto size = fs::file_size(input, ec);
    const auto mtime = fs::last_write_time(input, ec).time_since_epoch().count();
    return fmt::format("{}|{}", size, mtime);
}

}  // namespace ladder::engine
