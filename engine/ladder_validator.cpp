#include "engine/ladder_validator.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "av/memory_input.hpp"
#include "mux/av1_codecs_string.hpp"
#include "mux/av1_sequence_header.hpp"
#include "mux/bmff_boxes.hpp"
#include "mux/hls_bandwidth.hpp"
#include "mux/hls_playlist.hpp"

namespace ladder::engine {

namespace {

namespace fs = std::filesystem;

// EXTINF is written with 6 decimals; a tampered value is off by far more.
constexpr double kExtinfTolerance = 0.002;
// Audio segments end on the first AAC frame at or after a video boundary.
constexpr double kAudioAlignment = 0.05;
constexpr double kBandwidthTolerance = 0.10;

std::optional<std::vector<std::uint8_t>> read_bytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct TrackCheck {
    std::vector<double> boundaries;  // cumulative EXTINF
    std::vector<mux::SegmentSize> sizes;
    int target_duration = 0;
    std::string codecs;  // from av1C, video only
    bool ok = false;
};

class Validator {
public:
    explicit Validator(fs::path outdir) : outdir_(std::move(outdir)) {}

    ValidationReport run();

private:
    void problem(const fs::path& where, const std::string& what) {
        report_.problems.push_back(fmt::format("{}: {}", fs::relative(where, outdir_).generic_string(), what));
    }

    std::optional<mux::MediaPlaylist> load_media(const fs::path& file);
    TrackCheck check_track(const fs::path& playlist_file, bool video);
    std::optional<std::string> codecs_of_init(const std::vector<std::uint8_t>& init, const fs::path& file);
    void check_segment(const std::vector<std::uint8_t>& init, const fs::path& seg, double extinf, bool video);
    void check_iframes(const fs::path& playlist_file);
    void check_bandwidth(const fs::path& master, const mux::HlsAttributes& attrs, const TrackCheck& video,
                         const TrackCheck* audio);

    fs::path outdir_;
    ValidationReport report_;
};

std::optional<mux::MediaPlaylist> Validator::load_media(const fs::path& file) {
    auto bytes = read_bytes(file);
    if (!bytes) {
        problem(file, "missing (referenced by the master playlist)");
        return std::nullopt;
    }
    try {
        return mux::parse_media_playlist(std::string(bytes->begin(), bytes->end()), file.string());
    } catch (const mux::PlaylistError& e) {
        problem(file, fmt::format("does not parse: {}", e.what()));
        return std::nullopt;
    }
}

std::optional<std::string> Validator::codecs_of_init(const std::vector<std::uint8_t>& init, const fs::path& file) {
    try {
        av::MemoryInput in(init, file.string());
        const AVCodecParameters* par = in.get()->streams[0]->codecpar;
        if (par->codec_id != AV_CODEC_ID_AV1) return std::nullopt;
        if (par->extradata_size <= 4) {
            problem(file, "av1C has no sequence header");
            return std::nullopt;
        }
        auto hdr = mux::parse_sequence_header({par->extradata + 4, static_cast<std::size_t>(par->extradata_size - 4)});
        if (!hdr) {
            problem(file, "av1C sequence header does not parse");
            return std::nullopt;
        }
        return mux::av1_codecs_string(*hdr);
    } catch (const std::exception& e) {
        problem(file, fmt::format("not a readable init segment: {}", e.what()));
        return std::nullopt;
    }
}

void Validator::check_segment(const std::vector<std::uint8_t>& init, const fs::path& seg, double extinf,
                              bool video) {
    auto bytes = read_bytes(seg);
    if (!bytes) {
        problem(seg, "missing (referenced by its playlist)");
        return;
    }
    ++report_.segments;
    std::vector<std::uint8_t> joined = init;
    joined.insert(joined.end(), bytes->begin(), bytes->end());
    try {
        av::MemoryInput in(std::move(joined), seg.string());
        const AVRational tb = in.get()->streams[0]->time_base;
        av::PacketPtr pkt = av::make_packet();
        if (!in.read(pkt.get())) {
            problem(seg, "holds no samples");
            return;
        }
        if (video) {
            const bool key = pkt->flags & AV_PKT_FLAG_KEY;
            const bool header = mux::parse_sequence_header({pkt->data, static_cast<std::size_t>(pkt->size)}).has_value();
            if (!key || !header) problem(seg, "does not start with a key frame carrying a sequence header");
        }
        // Durations as a player sees them: the fragment's own sample
        // durations, in the timescale of the init segment.
        const auto layout = mux::read_fragment_layout(*bytes);
        if (!layout || !layout->duration) {
            problem(seg, "its moof does not describe its samples");
            return;
        }
        const double real = static_cast<double>(*layout->duration) * av_q2d(tb);
        if (std::abs(real - extinf) > kExtinfTolerance)
            problem(seg, fmt::format("EXTINF says {:.6f} s but its samples last {:.6f} s", extinf, real));
    } catch (const std::exception& e) {
        problem(seg, fmt::format("cannot be read with its init segment: {}", e.what()));
    }
}

TrackCheck Validator::check_track(const fs::path& playlist_file, bool video) {
    TrackCheck t;
    auto p = load_media(playlist_file);
    if (!p) return t;
    const fs::path dir = playlist_file.parent_path();
    if (p->version < 6) problem(playlist_file, fmt::format("EXT-X-VERSION {} is below 6 (fMP4 needs 6)", p->version));
    if (p->playlist_type != "VOD") problem(playlist_file, "EXT-X-PLAYLIST-TYPE is not VOD");
    if (!p->endlist) problem(playlist_file, "no EXT-X-ENDLIST");
    if (!p->map_uri) {
        problem(playlist_file, "no EXT-X-MAP (init segment)");
        return t;
    }
    if (p->segments.empty()) problem(playlist_file, "no segments");
    auto init = read_bytes(dir / *p->map_uri);
    if (!init) {
        problem(dir / *p->map_uri, "missing (EXT-X-MAP)");
        return t;
    }
    if (video)
        if (auto c = codecs_of_init(*init, dir / *p->map_uri)) t.codecs = *c;
    double sum = 0;
    for (const auto& s : p->segments) {
        if (std::lround(s.duration) > p->target_duration)
            problem(playlist_file, fmt::format("EXTINF {:.6f} of {} rounds above EXT-X-TARGETDURATION {}", s.duration,
                                               s.uri, p->target_duration));
        check_segment(*init, dir / s.uri, s.duration, video);
        sum += s.duration;
        t.boundaries.push_back(sum);
        std::error_code ec;
        const auto size = fs::file_size(dir / s.uri, ec);
        t.sizes.push_back({s.duration, ec ? 0 : size});
    }
    t.target_duration = p->target_duration;
    t.ok = true;
    return t;
}

void Validator::check_iframes(const fs::path& playlist_file) {
    auto p = load_media(playlist_file);
    if (!p) return;
    if (!p->iframes_only) problem(playlist_file, "no EXT-X-I-FRAMES-ONLY");
    if (!p->map_uri) return;
    const fs::path dir = playlist_file.parent_path();
    auto init = read_bytes(dir / *p->map_uri);
    if (!init) return;  // reported with the media playlist
    for (const auto& s : p->segments) {
        auto bytes = read_bytes(dir / s.uri);
        if (!bytes) {
            problem(dir / s.uri, "missing (referenced by the I-frame playlist)");
            continue;
        }
        if (!s.byte_range || s.byte_range->offset + s.byte_range->length > bytes->size()) {
            problem(playlist_file, fmt::format("{}: missing or out-of-file EXT-X-BYTERANGE", s.uri));
            continue;
        }
        std::vector<std::uint8_t> joined = *init;
        joined.insert(joined.end(), bytes->begin() + static_cast<std::ptrdiff_t>(s.byte_range->offset),
                      bytes->begin() + static_cast<std::ptrdiff_t>(s.byte_range->offset + s.byte_range->length));
        try {
            av::MemoryInput in(std::move(joined), s.uri);
            av::PacketPtr pkt = av::make_packet();
            if (!in.read(pkt.get()) || !(pkt->flags & AV_PKT_FLAG_KEY))
                problem(playlist_file, fmt::format("{}: the byte range does not hold a key frame", s.uri));
        } catch (const std::exception& e) {
            problem(playlist_file, fmt::format("{}: the byte range is not readable: {}", s.uri, e.what()));
        }
    }
}

void Validator::check_bandwidth(const fs::path& master, const mux::HlsAttributes& attrs, const TrackCheck& video,
                                const TrackCheck* audio) {
    std::uint64_t peak = mux::peak_bandwidth(video.sizes, video.target_duration);
    std::uint64_t average = mux::average_bandwidth(video.sizes);
    if (audio && audio->ok) {
        peak += mux::peak_bandwidth(audio->sizes, audio->target_duration);
        average += mux::average_bandwidth(audio->sizes);
    }
    auto compare = [&](const char* name, std::uint64_t measured) {
        auto v = attrs.get(name);
        if (!v) {
            problem(master, fmt::format("variant {} has no {}", attrs.get("RESOLUTION").value_or("?"), name));
            return;
        }
        const double declared = std::strtod(v->c_str(), nullptr);
        if (measured > 0 && std::abs(declared - static_cast<double>(measured)) > kBandwidthTolerance * measured)
            problem(master, fmt::format("variant {}: {}={} but the segments measure {} (more than 10% apart)",
                                        attrs.get("RESOLUTION").value_or("?"), name, *v, measured));
    };
    compare("BANDWIDTH", peak);
    compare("AVERAGE-BANDWIDTH", average);
}

ValidationReport Validator::run() {
    const fs::path master_file = outdir_ / "master.m3u8";
    auto bytes = read_bytes(master_file);
    if (!bytes) {
        problem(master_file, "missing: not a complete ladder (the master playlist is written last)");
        return report_;
    }
    mux::MasterPlaylist master;
    try {
        master = mux::parse_master_playlist(std::string(bytes->begin(), bytes->end()), master_file.string());
    } catch (const mux::PlaylistError& e) {
        problem(master_file, fmt::format("does not parse: {}", e.what()));
        return report_;
    }
    if (master.variants.empty()) problem(master_file, "no variant streams");
    if (!master.independent_segments) problem(master_file, "no EXT-X-INDEPENDENT-SEGMENTS");

    std::optional<TrackCheck> audio;
    for (const auto& m : master.media) {
        if (m.get("TYPE") != "AUDIO") continue;
        auto uri = m.get("URI");
        if (!uri) continue;
        audio = check_track(outdir_ / *uri, false);
    }
    std::optional<TrackCheck> reference;
    std::string reference_uri;
    for (const auto& v : master.variants) {
        ++report_.variants;
        const fs::path playlist = outdir_ / v.uri;
        TrackCheck t = check_track(playlist, true);
        if (!t.ok) continue;
        const std::string codecs = v.attributes.get("CODECS").value_or("");
        const std::string declared_video = codecs.substr(0, codecs.find(','));
        if (!t.codecs.empty() && declared_video != t.codecs)
            problem(master_file, fmt::format("variant {}: CODECS says {} but its init segment's av1C says {}", v.uri,
                                             declared_video, t.codecs));
        check_bandwidth(master_file, v.attributes, t, audio ? &*audio : nullptr);
        if (!reference) {
            reference = t;
            reference_uri = v.uri;
        } else if (t.boundaries.size() != reference->boundaries.size()) {
            problem(playlist, fmt::format("{} segments, but {} has {}: rungs do not line up", t.boundaries.size(),
                                          reference_uri, reference->boundaries.size()));
        } else {
            for (std::size_t i = 0; i < t.boundaries.size(); ++i)
                if (std::abs(t.boundaries[i] - reference->boundaries[i]) > kExtinfTolerance) {
                    problem(playlist, fmt::format("segment {} ends at {:.6f} s but in {} at {:.6f} s: rungs do not "
                                                  "line up",
                                                  i + 1, t.boundaries[i], reference_uri, reference->boundaries[i]));
                    break;
                }
        }
    }
    if (audio && audio->ok && reference) {
        const auto& a = audio->boundaries;
        const auto& r = reference->boundaries;
        if (a.size() != r.size())
            problem(master_file, fmt::format("the audio has {} segments and the video {}: they do not line up",
                                             a.size(), r.size()));
        else
            for (std::size_t i = 0; i + 1 < a.size(); ++i)
                if (std::abs(a[i] - r[i]) > kAudioAlignment) {
                    problem(master_file, fmt::format("audio segment {} ends at {:.3f} s, video at {:.3f} s", i + 1,
                                                     a[i], r[i]));
                    break;
                }
    }
    for (const auto& i : master.iframe_streams)
        if (auto uri = i.get("URI")) check_iframes(outdir_ / *uri);
    return report_;
}

}  // namespace

ValidationReport validate_hls_ladder(const std::filesystem::path& outdir) { return Validator(outdir).run(); }

}  // namespace ladder::engine
