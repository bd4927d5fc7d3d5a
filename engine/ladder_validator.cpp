#include "engine/ladder_validator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <optional>

#include "av/memory_input.hpp"
#include "engine/dash_validator.hpp"
#include "engine/init_segment_codecs.hpp"
#include "engine/ladder_path.hpp"
#include "engine/segment_timing.hpp"
#include "engine/validation_text.hpp"
#include "mux/av1_codecs_string.hpp"
#include "mux/av1_sequence_header.hpp"
#include "mux/bmff_boxes.hpp"
#include "mux/hls_bandwidth.hpp"
#include "mux/hls_playlist.hpp"
#include "mux/hls_syntax.hpp"

namespace ladder::engine {

namespace {

namespace fs = std::filesystem;

// EXTINF is written with 6 decimals; a tampered value is off by far more.
constexpr double kExtinfTolerance = 0.002;
// 1024 samples at 7350 Hz, AAC's lowest rate.
constexpr double kLongestAacFrame = 1024.0 / 7350;

struct TrackCheck {
    std::vector<double> boundaries;  // cumulative EXTINF
    std::vector<mux::SegmentSize> sizes;
    int target_duration = 0;
    std::string codecs;  // from av1C, video only
    // When the first and the last segment play (when both could be read).
    std::optional<SegmentTiming> first, last;
    bool ok = false;
};

struct SegmentRead {
    std::uint64_t bytes = 0;  // the whole file (0 when it cannot be read)
    std::optional<SegmentTiming> timing;
};

std::string shown(std::string_view text) { return shown_in_problem(text); }

class Validator {
public:
    explicit Validator(const fs::path& outdir) : folder_(outdir) {}

    ValidationReport run();

private:
    void problem(const fs::path& where, const std::string& what) {
        report_.problems.push_back(
            fmt::format("{}: {}", shown(where.lexically_relative(folder_.path()).generic_string()), what));
    }

    std::optional<LadderFile> follow(const fs::path& playlist, const std::string& uri);
    std::optional<std::vector<std::uint8_t>> read_file(const LadderFile& file, std::string_view missing);
    std::optional<mux::MediaPlaylist> load_media(const LadderFile& file);
    TrackCheck check_track(const LadderFile& playlist, bool video);
    std::optional<std::string> codecs_of_init(const std::vector<std::uint8_t>& init, const fs::path& file);
    SegmentRead check_segment(const std::vector<std::uint8_t>& init, const LadderFile& seg, double extinf,
                              bool video);
    void check_iframes(const LadderFile& playlist);
    void check_bandwidth(const fs::path& master, const mux::HlsAttributes& attrs, const TrackCheck& video,
                         const std::vector<const TrackCheck*>& audio);
    // Every AUDIO rendition's track, by URI, and each group's members.
    void check_audio_media(const fs::path& master_file, const mux::MasterPlaylist& master);
    std::vector<const TrackCheck*> audio_group(const fs::path& master_file, const mux::HlsAttributes& variant);
    void check_audio_alignment(const fs::path& master_file, const TrackCheck& reference);
    // Every SUBTITLES rendition: segmented WebVTT with X-TIMESTAMP-MAP, its
    // segments where the video's are; every variant's group exists.
    void check_subtitles(const fs::path& master_file, const mux::MasterPlaylist& master, const TrackCheck* reference);

    LadderFolder folder_;
    ValidationReport report_;
    std::map<std::string, TrackCheck> audio_tracks_;  // by URI as the master playlist writes it
    std::map<std::string, std::vector<std::string>> audio_groups_;  // GROUP-ID -> URIs
};

// The file a URI in playlist names (relative to the playlist's folder), or
// nullopt after a problem line: nothing outside the ladder is ever opened.
std::optional<LadderFile> Validator::follow(const fs::path& playlist, const std::string& uri) {
    UriResolution r = folder_.resolve(playlist.parent_path(), uri);
    if (r.file) return std::move(r.file);
    const std::string_view note = r.refusal == UriRefusal::url ? "ladder validate checks local ladders only" : "";
    problem(playlist, fmt::format("URI \"{}\" {}", shown(uri), describe(r.refusal, note)));
    return std::nullopt;
}

std::optional<std::vector<std::uint8_t>> Validator::read_file(const LadderFile& file, std::string_view missing) {
    FileBytes r = folder_.read(file);
    switch (r.status) {
        case ReadStatus::ok: return std::move(r.bytes);
        case ReadStatus::missing: problem(file.path, std::string(missing)); break;
        case ReadStatus::not_a_regular_file: problem(file.path, "not a regular file: not read"); break;
        case ReadStatus::outside:
            problem(file.path, "outside the ladder: not read (a symbolic link leads out of the ladder's folder)");
            break;
    }
    return std::nullopt;
}

std::optional<mux::MediaPlaylist> Validator::load_media(const LadderFile& file) {
    auto bytes = read_file(file, "missing (referenced by the master playlist)");
    if (!bytes) return std::nullopt;
    try {
        return mux::parse_media_playlist(std::string(bytes->begin(), bytes->end()), file.path.string());
    } catch (const mux::PlaylistError& e) {
        problem(file.path, fmt::format("does not parse: {}", e.what()));
        return std::nullopt;
    }
}

std::optional<std::string> Validator::codecs_of_init(const std::vector<std::uint8_t>& init, const fs::path& file) {
    InitCodecs c = av1_codecs_of_init(init, file);
    if (!c.problem.empty()) problem(file, c.problem);
    return c.codecs;
}

SegmentRead Validator::check_segment(const std::vector<std::uint8_t>& init, const LadderFile& file, double extinf,
                                    bool video) {
    const auto bytes = read_file(file, "missing (referenced by its playlist)");
    if (!bytes) return {};
    ++report_.segments;
    SegmentRead read{bytes->size(), std::nullopt};
    const fs::path& seg = file.path;
    std::vector<std::uint8_t> joined = init;
    joined.insert(joined.end(), bytes->begin(), bytes->end());
    try {
        av::MemoryInput in(std::move(joined), seg.string());
        av::PacketPtr pkt = av::make_packet();
        if (!in.read(pkt.get())) {
            problem(seg, "holds no samples");
            return read;
        }
        if (video) {
            const bool key = pkt->flags & AV_PKT_FLAG_KEY;
            const bool header = mux::parse_sequence_header({pkt->data, static_cast<std::size_t>(pkt->size)}).has_value();
            if (!key || !header) problem(seg, "does not start with a key frame carrying a sequence header");
        }
    } catch (const std::exception& e) {
        problem(seg, fmt::format("cannot be read with its init segment: {}", e.what()));
        return read;
    }
    // Durations as a player sees them: the fragment's own sample durations
    // in the init segment's timescale, less what its edit list hides (an
    // audio track's priming, before 0).
    read.timing = segment_timing(init, *bytes);
    if (!read.timing) {
        problem(seg, "its moof does not describe its samples");
        return read;
    }
    const double real = read.timing->presented();
    if (std::abs(real - extinf) > kExtinfTolerance)
        problem(seg, fmt::format("EXTINF says {:.6f} s but its samples last {:.6f} s", extinf, real));
    return read;
}

TrackCheck Validator::check_track(const LadderFile& playlist, bool video) {
    TrackCheck t;
    auto p = load_media(playlist);
    if (!p) return t;
    const fs::path& playlist_file = playlist.path;
    if (p->version < 6) problem(playlist_file, fmt::format("EXT-X-VERSION {} is below 6 (fMP4 needs 6)", p->version));
    if (p->playlist_type != "VOD") problem(playlist_file, "EXT-X-PLAYLIST-TYPE is not VOD");
    if (!p->endlist) problem(playlist_file, "no EXT-X-ENDLIST");
    if (!p->map_uri) {
        problem(playlist_file, "no EXT-X-MAP (init segment)");
        return t;
    }
    if (p->segments.empty()) problem(playlist_file, "no segments");
    const auto map = follow(playlist_file, *p->map_uri);
    if (!map) return t;
    const auto init = read_file(*map, "missing (EXT-X-MAP)");
    if (!init) return t;
    if (video)
        if (auto c = codecs_of_init(*init, map->path)) t.codecs = *c;
    double sum = 0;
    for (const auto& s : p->segments) {
        if (std::lround(s.duration) > p->target_duration)
            problem(playlist_file, fmt::format("EXTINF {:.6f} of {} rounds above EXT-X-TARGETDURATION {}", s.duration,
                                               shown(s.uri), p->target_duration));
        const auto seg = follow(playlist_file, s.uri);
        const SegmentRead read = seg ? check_segment(*init, *seg, s.duration, video) : SegmentRead{};
        if (&s == &p->segments.front()) t.first = read.timing;
        if (&s == &p->segments.back()) t.last = read.timing;
        sum += s.duration;
        t.boundaries.push_back(sum);
        t.sizes.push_back({s.duration, read.bytes});
    }
    t.target_duration = p->target_duration;
    t.ok = true;
    return t;
}

void Validator::check_iframes(const LadderFile& playlist) {
    auto p = load_media(playlist);
    if (!p) return;
    const fs::path& playlist_file = playlist.path;
    if (!p->iframes_only) problem(playlist_file, "no EXT-X-I-FRAMES-ONLY");
    if (!p->map_uri) return;
    const auto map = follow(playlist_file, *p->map_uri);
    if (!map) return;
    const FileBytes init = folder_.read(*map);
    if (init.status != ReadStatus::ok) return;  // reported with the media playlist
    for (const auto& s : p->segments) {
        const auto seg = follow(playlist_file, s.uri);
        if (!seg) continue;
        const auto bytes = read_file(*seg, "missing (referenced by the I-frame playlist)");
        if (!bytes) continue;
        if (!s.byte_range || s.byte_range->offset + s.byte_range->length > bytes->size()) {
            problem(playlist_file, fmt::format("{}: missing or out-of-file EXT-X-BYTERANGE", shown(s.uri)));
            continue;
        }
        std::vector<std::uint8_t> joined = init.bytes;
        joined.insert(joined.end(), bytes->begin() + static_cast<std::ptrdiff_t>(s.byte_range->offset),
                      bytes->begin() + static_cast<std::ptrdiff_t>(s.byte_range->offset + s.byte_range->length));
        try {
            av::MemoryInput in(std::move(joined), seg->path.string());
            av::PacketPtr pkt = av::make_packet();
            if (!in.read(pkt.get()) || !(pkt->flags & AV_PKT_FLAG_KEY))
                problem(playlist_file, fmt::format("{}: the byte range does not hold a key frame", shown(s.uri)));
        } catch (const std::exception& e) {
            problem(playlist_file, fmt::format("{}: the byte range is not readable: {}", shown(s.uri), e.what()));
        }
    }
}

void Validator::check_bandwidth(const fs::path& master, const mux::HlsAttributes& attrs, const TrackCheck& video,
                                const std::vector<const TrackCheck*>& audio) {
    std::uint64_t peak = mux::peak_bandwidth(video.sizes, video.target_duration);
    std::uint64_t average = mux::average_bandwidth(video.sizes);
    // The variant may be played with any rendition of its group: its numbers
    // hold for the largest.
    std::uint64_t audio_peak = 0;
    std::uint64_t audio_average = 0;
    for (const TrackCheck* a : audio) {
        if (!a->ok) continue;
        audio_peak = std::max(audio_peak, mux::peak_bandwidth(a->sizes, a->target_duration));
        audio_average = std::max(audio_average, mux::average_bandwidth(a->sizes));
    }
    peak += audio_peak;
    average += audio_average;
    auto compare = [&](const char* name, std::uint64_t measured) {
        auto v = attrs.get(name);
        if (!v) {
            problem(master, fmt::format("variant {} has no {}", shown(attrs.get("RESOLUTION").value_or("?")), name));
            return;
        }
        const double declared = std::strtod(v->c_str(), nullptr);
        if (measured > 0 && std::abs(declared - static_cast<double>(measured)) > kBandwidthTolerance * measured)
            problem(master, fmt::format("variant {}: {}={} but the segments measure {} (more than 10% apart)",
                                        shown(attrs.get("RESOLUTION").value_or("?")), name, shown(*v), measured));
    };
    compare("BANDWIDTH", peak);
    compare("AVERAGE-BANDWIDTH", average);
}

void Validator::check_audio_media(const fs::path& master_file, const mux::MasterPlaylist& master) {
    std::map<std::string, std::set<std::string>> names;  // per group: NAME must tell renditions apart
    std::map<std::string, int> defaults;
    for (const auto& m : master.media) {
        if (m.get("TYPE") != "AUDIO") continue;
        const std::string group = m.get("GROUP-ID").value_or("");
        const std::string name = m.get("NAME").value_or("");
        if (!names[group].insert(name).second)
            problem(master_file, fmt::format("audio group \"{}\" has two renditions named \"{}\"", shown(group),
                                             shown(name)));
        defaults[group] += m.get("DEFAULT") == "YES";
        auto uri = m.get("URI");
        if (!uri) continue;
        audio_groups_[group].push_back(*uri);
        if (audio_tracks_.count(*uri)) continue;
        if (const auto playlist = follow(master_file, *uri)) audio_tracks_[*uri] = check_track(*playlist, false);
    }
    for (const auto& [group, count] : defaults)
        if (count > 1)
            problem(master_file, fmt::format("audio group \"{}\" has {} renditions with DEFAULT=YES (at most one)",
                                             shown(group), count));
}

std::vector<const TrackCheck*> Validator::audio_group(const fs::path& master_file, const mux::HlsAttributes& variant) {
    std::vector<const TrackCheck*> out;
    const auto group = variant.get("AUDIO");
    if (!group) return out;
    const auto it = audio_groups_.find(*group);
    if (it == audio_groups_.end()) {
        problem(master_file, fmt::format("variant {}: AUDIO=\"{}\" names no EXT-X-MEDIA group",
                                         shown(variant.get("RESOLUTION").value_or("?")), shown(*group)));
        return out;
    }
    for (const auto& uri : it->second)
        if (const auto t = audio_tracks_.find(uri); t != audio_tracks_.end()) out.push_back(&t->second);
    return out;
}

void Validator::check_audio_alignment(const fs::path& master_file, const TrackCheck& reference) {
    const auto& r = reference.boundaries;
    for (const auto& [uri, track] : audio_tracks_) {
        if (!track.ok) continue;
        const auto& a = track.boundaries;
        if (a.size() != r.size()) {
            problem(master_file, fmt::format("audio {} has {} segments and the video {}: they do not line up",
                                             shown(uri), a.size(), r.size()));
            continue;
        }
        // An unreadable first or last segment is reported with the segment.
        if (track.first && track.last && reference.first && reference.last)
            for (const std::string& m :
                 audio_span_mismatches(*track.first, *track.last, *reference.first, *reference.last))
                problem(master_file, fmt::format("audio {} {}", shown(uri), m));
        // Each segment is cut on the AAC frame boundary nearest the video's
        // (engine/audio_segment_plan.hpp): within a frame of it.
        const double frame = track.first ? track.first->first_sample_end - track.first->start : kLongestAacFrame;
        for (std::size_t i = 0; i + 1 < a.size(); ++i)
            if (std::abs(a[i] - r[i]) > frame + kExtinfTolerance) {
                problem(master_file, fmt::format("audio {} segment {} ends at {:.3f} s, video at {:.3f} s: more than "
                                                 "an AAC frame ({:.1f} ms) apart",
                                                 shown(uri), i + 1, a[i], r[i], frame * 1000));
                break;
            }
    }
}

void Validator::check_subtitles(const fs::path& master_file, const mux::MasterPlaylist& master,
                                const TrackCheck* reference) {
    std::set<std::string> groups;
    for (const auto& m : master.media) {
        if (m.get("TYPE") != "SUBTITLES") continue;
        groups.insert(m.get("GROUP-ID").value_or(""));
        const auto uri = m.get("URI");
        if (!uri) continue;
        const auto entry = follow(master_file, *uri);
        if (!entry) continue;
        const auto playlist = load_media(*entry);
        if (!playlist) continue;
        std::vector<double> ends;
        double end = 0;
        for (const auto& s : playlist->segments) {
            ends.push_back(end += s.duration);
            const auto seg = follow(entry->path, s.uri);
            if (!seg) continue;
            const auto bytes = read_file(*seg, "missing (referenced by its playlist)");
            if (!bytes) continue;
            ++report_.segments;
            const std::string text(bytes->begin(), bytes->begin() + std::min<std::size_t>(bytes->size(), 256));
            if (text.rfind("WEBVTT", 0) != 0)
                problem(seg->path, "does not start with WEBVTT");
            else if (text.substr(0, text.find("\n\n")).find("X-TIMESTAMP-MAP=") == std::string::npos)
                problem(seg->path, "has no X-TIMESTAMP-MAP in its header (players cannot place its cues)");
        }
        if (!reference) continue;
        const auto& r = reference->boundaries;
        if (ends.size() != r.size()) {
            problem(entry->path, fmt::format("{} segments, the video {}: they do not line up", ends.size(), r.size()));
            continue;
        }
        for (std::size_t i = 0; i < ends.size(); ++i)
            if (std::abs(ends[i] - r[i]) > kExtinfTolerance) {
                problem(entry->path, fmt::format("segment {} ends at {:.3f} s, video at {:.3f} s", i + 1, ends[i], r[i]));
                break;
            }
    }
    for (const auto& v : master.variants)
        if (const auto group = v.attributes.get("SUBTITLES"); group && !groups.count(*group))
            problem(master_file, fmt::format("variant {}: SUBTITLES=\"{}\" names no EXT-X-MEDIA group", shown(v.uri),
                                             shown(*group)));
}

ValidationReport Validator::run() {
    // Even the master playlist's own name may be a link leading out.
    const auto master_entry = follow(folder_.path() / "master.m3u8", "master.m3u8");
    if (!master_entry) return report_;
    const fs::path& master_file = master_entry->path;
    auto bytes = read_file(*master_entry, "missing: not a complete ladder (the master playlist is written last)");
    if (!bytes) return report_;
    mux::MasterPlaylist master;
    try {
        master = mux::parse_master_playlist(std::string(bytes->begin(), bytes->end()), master_file.string());
    } catch (const mux::PlaylistError& e) {
        problem(master_file, fmt::format("does not parse: {}", e.what()));
        return report_;
    }
    if (master.variants.empty()) problem(master_file, "no variant streams");
    if (!master.independent_segments) problem(master_file, "no EXT-X-INDEPENDENT-SEGMENTS");

    check_audio_media(master_file, master);
    std::optional<TrackCheck> reference;
    std::string reference_uri;
    for (const auto& v : master.variants) {
        ++report_.variants;
        const auto entry = follow(master_file, v.uri);
        if (!entry) continue;
        const fs::path& playlist = entry->path;
        TrackCheck t = check_track(*entry, true);
        if (!t.ok) continue;
        const std::string codecs = v.attributes.get("CODECS").value_or("");
        const std::string declared_video = codecs.substr(0, codecs.find(','));
        if (!t.codecs.empty() && declared_video != t.codecs)
            problem(master_file, fmt::format("variant {}: CODECS says {} but its init segment's av1C says {}",
                                             shown(v.uri), shown(declared_video), t.codecs));
        check_bandwidth(master_file, v.attributes, t, audio_group(master_file, v.attributes));
        if (!reference) {
            reference = t;
            reference_uri = shown(v.uri);
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
    if (reference) check_audio_alignment(master_file, *reference);
    check_subtitles(master_file, master, reference ? &*reference : nullptr);
    for (const auto& i : master.iframe_streams)
        if (auto uri = i.get("URI"))
            if (const auto playlist = follow(master_file, *uri)) check_iframes(*playlist);
    report_.segments += validate_dash_manifest(folder_.path(), report_.problems);
    return report_;
}

}  // namespace

ValidationReport validate_hls_ladder(const std::filesystem::path& outdir) { return Validator(outdir).run(); }

}  // namespace ladder::engine
