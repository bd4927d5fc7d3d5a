#include "engine/check/hls_declarations.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "engine/check/validation_text.hpp"
#include "mux/hls_master_builder.hpp"

namespace ladder::engine {

namespace {

// 1024 samples at 7350 Hz, AAC's lowest rate.
constexpr double kLongestAacFrame = 1024.0 / 7350;

std::string_view trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(' ');
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

std::optional<std::string> declared_against(const mux::HlsAttributes& attrs, const char* name,
                                            std::uint64_t measured) {
    const auto v = attrs.get(name);
    const std::string variant = shown_in_problem(attrs.get("RESOLUTION").value_or("?"));
    if (!v) return fmt::format("variant {} has no {}", variant, name);
    const double declared = std::strtod(v->c_str(), nullptr);
    if (measured > 0 && std::abs(declared - static_cast<double>(measured)) > kBandwidthTolerance * measured)
        return fmt::format("variant {}: {}={} but the segments measure {} (more than 10% apart)", variant, name,
                           shown_in_problem(*v), measured);
    return std::nullopt;
}

}  // namespace

std::optional<std::string> disagreeing_codecs_entry(std::string_view declared, const std::string& from_init) {
    bool any_av1 = false;
    for (std::size_t start = 0; start <= declared.size();) {
        const std::size_t comma = std::min(declared.find(',', start), declared.size());
        const std::string_view entry = trimmed(declared.substr(start, comma - start));
        if (entry.starts_with("av01")) {
            any_av1 = true;
            if (entry != from_init) return std::string(entry);
        }
        start = comma + 1;
    }
    if (any_av1) return std::nullopt;
    const std::string first(trimmed(declared.substr(0, declared.find(','))));
    return first == from_init ? std::nullopt : std::optional(first);
}

std::vector<std::string> declared_video_problems(const std::string& stream, const mux::HlsAttributes& attrs,
                                                 const InitFacts& init) {
    std::vector<std::string> out;
    if (!init.codecs.empty())
        if (auto wrong = disagreeing_codecs_entry(attrs.get("CODECS").value_or(""), init.codecs))
            out.push_back(fmt::format("{}: CODECS says {} but its init segment's av1C says {}", stream,
                                      shown_in_problem(*wrong), init.codecs));
    const auto range = attrs.get("VIDEO-RANGE");
    if (!init.colour || !range) return out;
    const std::string expected = mux::video_range_for_transfer(init.colour->transfer);
    if (*range != expected)
        out.push_back(fmt::format("{}: VIDEO-RANGE={} but its init segment's av1C says transfer {} ({})", stream,
                                  shown_in_problem(*range), init.colour->transfer, expected));
    return out;
}

std::vector<std::string> bandwidth_problems(const mux::HlsAttributes& attrs, const TrackCheck& video,
                                            const std::vector<const TrackCheck*>& audio) {
    std::uint64_t peak = mux::peak_bandwidth(video.sizes, video.target_duration);
    std::uint64_t average = mux::average_bandwidth(video.sizes);
    std::uint64_t audio_peak = 0;
    std::uint64_t audio_average = 0;
    for (const TrackCheck* a : audio) {
        if (!a->ok) continue;
        audio_peak = std::max(audio_peak, mux::peak_bandwidth(a->sizes, a->target_duration));
        audio_average = std::max(audio_average, mux::average_bandwidth(a->sizes));
    }
    std::vector<std::string> out;
    if (auto p = declared_against(attrs, "BANDWIDTH", peak + audio_peak)) out.push_back(std::move(*p));
    if (auto p = declared_against(attrs, "AVERAGE-BANDWIDTH", average + audio_average)) out.push_back(std::move(*p));
    return out;
}

std::vector<std::string> audio_alignment_problems(const std::string& shown_uri, const TrackCheck& audio,
                                                  const TrackCheck& reference) {
    const auto& r = reference.boundaries;
    const auto& a = audio.boundaries;
    if (a.size() != r.size())
        return {fmt::format("audio {} has {} segments and the video {}: they do not line up", shown_uri, a.size(),
                            r.size())};
    std::vector<std::string> out;
    // An unreadable first or last segment is reported with the segment.
    if (audio.first && audio.last && reference.first && reference.last)
        for (const std::string& m : audio_span_mismatches(*audio.first, *audio.last, *reference.first, *reference.last))
            out.push_back(fmt::format("audio {} {}", shown_uri, m));
    // Each segment is cut on the AAC frame boundary nearest the video's
    // (engine/media/audio_segment_plan.hpp): within a frame of it.
    const double frame = audio.first ? audio.first->first_sample_end - audio.first->start : kLongestAacFrame;
    for (std::size_t i = 0; i + 1 < a.size(); ++i)
        if (std::abs(a[i] - r[i]) > frame + kExtinfTolerance) {
            out.push_back(fmt::format("audio {} segment {} ends at {:.3f} s, video at {:.3f} s: more than an AAC "
                                      "frame ({:.1f} ms) apart",
                                      shown_uri, i + 1, a[i], r[i], frame * 1000));
            break;
        }
    return out;
}

std::vector<std::string> variant_alignment_problems(const TrackCheck& variant, const TrackCheck& reference,
                                                    const std::string& reference_uri) {
    const auto& t = variant.boundaries;
    const auto& r = reference.boundaries;
    if (t.size() != r.size())
        return {fmt::format("{} segments, but {} has {}: rungs do not line up", t.size(), reference_uri, r.size())};
    for (std::size_t i = 0; i < t.size(); ++i)
        if (std::abs(t[i] - r[i]) > kExtinfTolerance)
            return {fmt::format("segment {} ends at {:.6f} s but in {} at {:.6f} s: rungs do not line up", i + 1, t[i],
                                reference_uri, r[i])};
    return {};
}

std::vector<std::string> subtitle_alignment_problems(const std::vector<double>& ends, const TrackCheck& reference) {
    const auto& r = reference.boundaries;
    if (ends.size() != r.size())
        return {fmt::format("{} segments, the video {}: they do not line up", ends.size(), r.size())};
    for (std::size_t i = 0; i < ends.size(); ++i)
        if (std::abs(ends[i] - r[i]) > kExtinfTolerance)
            return {fmt::format("segment {} ends at {:.3f} s, video at {:.3f} s", i + 1, ends[i], r[i])};
    return {};
}

}  // namespace ladder::engine
