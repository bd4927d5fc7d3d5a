#include "cli/frame_rate_option.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace ladder::cli {

namespace {

constexpr double kMostFramesPerSecond = 240;

std::optional<std::int64_t> whole_number(std::string_view text) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
}

// "23.976": digits, one point, digits (at most 6 after it).
std::optional<AVRational> decimal(std::string_view text) {
    const auto point = text.find('.');
    if (point == std::string_view::npos) return std::nullopt;
    const std::string_view whole = text.substr(0, point), fraction = text.substr(point + 1);
    if (fraction.empty() || fraction.size() > 6 || fraction.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    const auto w = whole.empty() ? std::optional<std::int64_t>(0) : whole_number(whole);
    const auto f = whole_number(fraction);
    if (!w || !f || *w < 0) return std::nullopt;
    const auto scale = static_cast<std::int64_t>(std::pow(10, fraction.size()));
    const double value = static_cast<double>(*w) + static_cast<double>(*f) / static_cast<double>(scale);
    const double ntsc = std::round(value * 1.001);
    if (*f != 0 && ntsc > 0 && std::fabs(value - ntsc * 1000 / 1001) < 0.005)
        return AVRational{static_cast<int>(ntsc) * 1000, 1001};
    AVRational r{};
    av_reduce(&r.num, &r.den, *w * scale + *f, scale, 1'000'000);
    return r;
}

std::optional<AVRational> ratio(std::string_view text) {
    const auto slash = text.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const auto n = whole_number(text.substr(0, slash)), d = whole_number(text.substr(slash + 1));
    if (!n || !d || *n <= 0 || *d <= 0 || *n > 1'000'000 || *d > 1'000'000) return std::nullopt;
    AVRational r{};
    av_reduce(&r.num, &r.den, *n, *d, 1'000'000);
    return r;
}

}  // namespace

AVRational parse_frame_rate(const std::string& text) {
    std::optional<AVRational> rate = ratio(text);
    if (!rate) rate = decimal(text);
    if (!rate)
        if (const auto n = whole_number(text); n && *n > 0 && *n <= 1'000'000) rate = AVRational{static_cast<int>(*n), 1};
    if (!rate || rate->num <= 0 || av_q2d(*rate) > kMostFramesPerSecond)
        throw std::invalid_argument(fmt::format("--frame-rate {}: give frames per second above 0 and at most {}, as a "
                                                "number or a ratio (24, 23.976, 30000/1001)",
                                                text, kMostFramesPerSecond));
    return *rate;
}

}  // namespace ladder::cli
