#include "engine/check/dash_validator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <pugixml.hpp>

#include "engine/check/init_segment_codecs.hpp"
#include "engine/check/ladder_path.hpp"
#include "engine/check/segment_listing.hpp"
#include "engine/check/segment_timing.hpp"
#include "engine/check/validation_text.hpp"
#include "mux/bmff_boxes.hpp"
#include "mux/dash_manifest.hpp"
#include "mux/hls_bandwidth.hpp"
#include "mux/hls_playlist.hpp"

namespace ladder::engine {

// A namespace of its own: the unity build puts this file next to the HLS
// checks, which have helpers of the same names.
namespace dash_check {

namespace fs = std::filesystem;

constexpr const char* kManifest = "manifest.mpd";
// Audio segments end on an AAC frame (1024 samples), not on a video frame.
constexpr double kAudioTolerance = 0.05;
// S@t and S@d are exact in their timescale; a tampered value is off by more.
constexpr double kTimelineTolerance = 0.001;
std::string shown(std::string_view text) { return shown_in_problem(text); }

// One Representation as its SegmentTemplate describes it.
struct Timeline {
    std::string id;
    bool video = false;
    double frame_seconds = 0;  // one frame of the representation (video), for the duration check
    std::string init_uri;      // relative to the MPD's folder, BaseURLs applied
    std::vector<std::string> media_uris;
    std::vector<double> starts;     // seconds
    std::vector<double> durations;  // seconds
    // When the first and the last segment play (when both could be read).
    std::optional<SegmentTiming> first, last;
};

// When an audio representation's first and last segments play.
struct AudioSpan {
    std::string id;
    SegmentTiming first, last;
};

// "$Number%05d$" and "$Number$" are the forms ladder writes; other
// identifiers are reported, not guessed.
std::optional<std::string> media_uri(const std::string& tmpl, long long number) {
    const std::string padded = "$Number%05d$", plain = "$Number$";
    if (auto at = tmpl.find(padded); at != std::string::npos)
        return tmpl.substr(0, at) + fmt::format("{:05d}", number) + tmpl.substr(at + padded.size());
    if (auto at = tmpl.find(plain); at != std::string::npos)
        return tmpl.substr(0, at) + std::to_string(number) + tmpl.substr(at + plain.size());
    return std::nullopt;
}

double frame_seconds_of(const char* rate) {
    int num = 0, den = 1;
    if (std::sscanf(rate, "%d/%d", &num, &den) < 1 || num <= 0 || den <= 0) return 0;
    return static_cast<double>(den) / num;
}

// xs:anyURI collapses white space: a BaseURL's text as a player takes it.
std::string xml_trimmed(std::string_view s) {
    constexpr std::string_view space = " \t\r\n";
    const auto first = s.find_first_not_of(space);
    if (first == std::string_view::npos) return {};
    return std::string(s.substr(first, s.find_last_not_of(space) - first + 1));
}

// A reference resolved against a base URL, both relative to the MPD's
// folder (RFC 3986 §5.2): a relative path replaces what follows the base's
// last '/'; anything else (a URL, an absolute path, an empty or unreadable
// reference) stays as written, for LadderFolder::resolve to refuse.
std::string in_base(const std::string& base, const std::string& reference) {
    if (uri_refusal_by_syntax(reference)) return reference;
    return base.substr(0, base.rfind('/') + 1) + reference;
}

// a += b, false when it overflows.
bool add_within(long long& a, long long b) { return !__builtin_add_overflow(a, b, &a); }

class DashCheck {
public:
    DashCheck(const fs::path& outdir, std::vector<std::string>& problems, HlsFindings hls)
        : folder_(outdir), problems_(problems), hls_(std::move(hls)) {}

    int run();

private:
    void problem(const std::string& what) { problems_.push_back(fmt::format("{}: {}", kManifest, what)); }
    void check_locations(pugi::xml_node mpd);
    std::optional<std::string> base_below(pugi::xml_node node, const std::string& base, const std::string& owner);
    bool too_many_representations(pugi::xml_node mpd);
    void check_period(pugi::xml_node period, const std::string& base);
    void check_adaptation_set(pugi::xml_node set, const std::string& base);
    std::optional<std::uint64_t> segment_count(pugi::xml_node list, const std::string& id);
    std::optional<Timeline> timeline_of(pugi::xml_node rep, pugi::xml_node set, const std::string& base);
    bool expand(pugi::xml_node list, long long timescale, long long number, const std::string& media, Timeline& t);
    std::optional<ColourDescription> check_video_init(const Timeline& t, const std::vector<std::uint8_t>& init,
                                                      pugi::xml_node rep);
    void check_colour_properties(const Timeline& t, const ColourDescription& colour, pugi::xml_node set,
                                 pugi::xml_node rep);
    std::optional<std::vector<mux::SegmentSize>> check_segments(Timeline& t, const std::optional<mux::TrackTiming>& track);
    std::optional<std::vector<mux::SegmentSize>> measure_segments(Timeline& t,
                                                                  const std::optional<mux::TrackTiming>& track,
                                                                  ListingCheck& listing);
    // Each S against when its segment's samples play.
    void check_segment_times(Timeline& t, const mux::TrackTiming& track, std::size_t i,
                             const std::vector<std::uint8_t>& segment, bool& reported);
    std::optional<std::vector<double>> hls_durations(const std::string& uri);
    void check_against_hls(const Timeline& t);
    void check_representation(Timeline& t, pugi::xml_node rep, pugi::xml_node set);
    void check_alignment(Timeline t);
    void check_audio_spans();
    // A subtitle Representation: one whole WebVTT file named by BaseURL.
    void check_text(pugi::xml_node rep, const std::string& base);
    std::optional<LadderFile> locate(const std::string& uri, const std::string& what);
    std::optional<std::vector<std::uint8_t>> read(const std::string& uri, const std::string& what);

    LadderFolder folder_;
    std::vector<std::string>& problems_;
    HlsFindings hls_;  // its inits_compared grows with the DASH checks' own
    SegmentRegistry segments_listed_;
    std::optional<Timeline> reference_;  // the first video representation: the others must line up with it
    std::vector<AudioSpan> audio_spans_;  // each audio representation's whose first and last segments were read
    int representations_ = 0;
    int segments_ = 0;
};

std::optional<LadderFile> DashCheck::locate(const std::string& uri, const std::string& what) {
    UriResolution r = folder_.resolve(folder_.path(), uri);
    if (!r.file) problem(fmt::format("{} \"{}\" {}", what, shown(uri), describe(r.refusal)));
    return std::move(r.file);
}

std::optional<std::vector<std::uint8_t>> DashCheck::read(const std::string& uri, const std::string& what) {
    const auto file = locate(uri, what);
    if (!file) return std::nullopt;
    FileBytes b = folder_.read(*file);
    if (b.status != ReadStatus::ok) {
        problem(fmt::format("{} \"{}\" is missing or not a regular file", what, shown(uri)));
        return std::nullopt;
    }
    return std::move(b.bytes);
}

// Location (where a player fetches the MPD again) leads nowhere else either.
void DashCheck::check_locations(pugi::xml_node mpd) {
    for (const char* name : {"Location", "PatchLocation"})
        for (pugi::xml_node node : mpd.children(name)) {
            const std::string uri = xml_trimmed(node.child_value());
            const UriResolution r = folder_.resolve(folder_.path(), uri);
            if (!r.file) problem(fmt::format("{} \"{}\" {}", name, shown(uri), refusal_in_words(r.refusal)));
        }
}

// The base URL below node (the MPD, a Period, an AdaptationSet or a
// Representation): its first BaseURL resolved against base, or base when it
// has none. A player may take any of them, so every one must lead inside
// the ladder; nullopt after a problem line for one that does not: what is
// below it is not in the ladder, and nothing there is read or fetched.
std::optional<std::string> DashCheck::base_below(pugi::xml_node node, const std::string& base,
                                                 const std::string& owner) {
    std::optional<std::string> below;
    bool inside = true;
    for (pugi::xml_node element : node.children("BaseURL")) {
        const std::string reference = xml_trimmed(element.child_value());
        const std::string resolved = reference.empty() ? base : in_base(base, reference);
        // "" is the MPD's own folder.
        const UriResolution r = resolved.empty() ? UriResolution{LadderFile{}, {}}
                                                 : folder_.resolve(folder_.path(), resolved);
        if (!r.file) {
            problem(fmt::format("BaseURL \"{}\" of {} {}", shown(reference), owner, refusal_in_words(r.refusal)));
            inside = false;
        }
        if (!below) below = resolved;
    }
    if (!inside) return std::nullopt;
    return below.value_or(base);
}

// Every Representation has an init segment of its own: more of them than
// the folder has files is refused in one line, not checked one by one.
bool DashCheck::too_many_representations(pugi::xml_node mpd) {
    std::uint64_t count = 0;
    for (pugi::xml_node period : mpd.children("Period"))
        for (pugi::xml_node set : period.children("AdaptationSet"))
            for (pugi::xml_node rep = set.child("Representation"); rep; rep = rep.next_sibling("Representation"))
                ++count;
    const std::uint64_t files = folder_.file_count();
    if (count <= files) return false;
    problem(fmt::format("{} Representations but the ladder's folder holds {} files (not checked one by one)", count,
                        files));
    return true;
}

void DashCheck::check_text(pugi::xml_node rep, const std::string& base) {
    const std::string id = rep.attribute("id").as_string();
    if (!rep.child("BaseURL")) {
        problem(fmt::format("text representation {} has no BaseURL", shown(id)));
        return;
    }
    const std::string uri = base;  // the representation's own BaseURL applied: its file
    const auto bytes = read(uri, fmt::format("text representation {}'s file", shown(id)));
    if (!bytes) return;
    ++segments_;
    const std::string head(bytes->begin(), bytes->begin() + std::min<std::size_t>(bytes->size(), 6));
    if (head != "WEBVTT")
        problem(fmt::format("text representation {}: \"{}\" does not start with WEBVTT", shown(id), shown(uri)));
}

// The segments a SegmentTimeline lists: the sum of its S elements' r + 1
// (saturating), or nullopt after a problem line for an S no timeline has.
std::optional<std::uint64_t> DashCheck::segment_count(pugi::xml_node list, const std::string& id) {
    std::uint64_t count = 0;
    for (pugi::xml_node s : list.children("S")) {
        const long long d = s.attribute("d").as_llong();
        const long long repeats = s.attribute("r").as_llong(0);
        if (d <= 0 || repeats < 0) {
            problem(fmt::format("representation {}: an S with d={} r={}", shown(id), d, repeats));
            return std::nullopt;
        }
        const std::uint64_t run = static_cast<std::uint64_t>(repeats) + 1;
        count = run > std::numeric_limits<std::uint64_t>::max() - count ? std::numeric_limits<std::uint64_t>::max()
                                                                         : count + run;
    }
    return count;
}

// The timeline's segments one by one (their number is within the files on
// disk by then); false after a problem line. number: the first segment's.
bool DashCheck::expand(pugi::xml_node list, long long timescale, long long number, const std::string& media,
                       Timeline& t) {
    long long now = 0;  // where the next segment starts
    bool went_back = false;
    for (pugi::xml_node s : list.children("S")) {
        const long long d = s.attribute("d").as_llong();
        const long long repeats = s.attribute("r").as_llong(0);
        if (s.attribute("t")) {
            const long long start = s.attribute("t").as_llong();
            // A timeline that starts again where it has been lists a stretch twice.
            if (!t.media_uris.empty() && start < now && !went_back) {
                problem(fmt::format("representation {}: an S starts at t={}, before the previous segment ends at "
                                    "t={}: the timeline goes back",
                                    shown(t.id), start, now));
                went_back = true;
            }
            now = start;
        }
        for (long long i = 0; i <= repeats; ++i) {
            const long long start = now;
            // Each segment's number and end time must fit (the first number is given).
            if ((!t.media_uris.empty() && !add_within(number, 1)) || !add_within(now, d)) {
                problem(fmt::format("representation {}: its SegmentTimeline's times or numbers overflow", shown(t.id)));
                return false;
            }
            auto uri = media_uri(media, number);
            if (!uri) {
                problem(fmt::format("representation {}: media=\"{}\" has no $Number$", shown(t.id), shown(media)));
                return false;
            }
            t.media_uris.push_back(std::move(*uri));
            t.starts.push_back(static_cast<double>(start) / static_cast<double>(timescale));
            t.durations.push_back(static_cast<double>(d) / static_cast<double>(timescale));
        }
    }
    return true;
}

std::optional<Timeline> DashCheck::timeline_of(pugi::xml_node rep, pugi::xml_node set, const std::string& base) {
    Timeline t;
    t.id = rep.attribute("id").as_string();
    t.video = std::string(set.attribute("contentType").as_string()) == "video" ||
              std::string(set.attribute("mimeType").as_string()) == "video/mp4";
    const char* rate = rep.attribute("frameRate") ? rep.attribute("frameRate").as_string()
                                                  : set.attribute("maxFrameRate").as_string();
    t.frame_seconds = frame_seconds_of(rate);
    pugi::xml_node tmpl = rep.child("SegmentTemplate");
    if (!tmpl) tmpl = set.child("SegmentTemplate");
    if (!tmpl) {
        problem(fmt::format("representation {} has no SegmentTemplate", shown(t.id)));
        return std::nullopt;
    }
    const long long timescale = tmpl.attribute("timescale").as_llong(1);
    if (timescale <= 0) {
        problem(fmt::format("representation {}: timescale {} is not positive", shown(t.id), timescale));
        return std::nullopt;
    }
    t.init_uri = in_base(base, tmpl.attribute("initialization").as_string());
    const std::string media = in_base(base, tmpl.attribute("media").as_string());
    pugi::xml_node list = tmpl.child("SegmentTimeline");
    if (!list) {
        problem(fmt::format("representation {} has no SegmentTimeline", shown(t.id)));
        return std::nullopt;
    }
    // Believed only as far as the files on disk can hold it.
    const auto count = segment_count(list, t.id);
    if (!count) return std::nullopt;
    const std::uint64_t files = folder_.file_count();
    if (*count > files) {
        problem(fmt::format("representation {}: its SegmentTimeline lists {} segments but the ladder's folder holds "
                            "{} files (not checked one by one)",
                            shown(t.id), *count, files));
        return std::nullopt;
    }
    if (!expand(list, timescale, tmpl.attribute("startNumber").as_llong(1), media, t)) return std::nullopt;
    if (t.media_uris.empty()) problem(fmt::format("representation {}: an empty SegmentTimeline", shown(t.id)));
    return t;
}

// @codecs against av1C; av1C's own fields and the colr boxes against its
// sequence header (unless the HLS checks compared them already). Returns the
// header's colour description.
std::optional<ColourDescription> DashCheck::check_video_init(const Timeline& t, const std::vector<std::uint8_t>& init,
                                                             pugi::xml_node rep) {
    const InitCodecs c = av1_codecs_of_init(init, folder_.path() / t.init_uri);
    const auto file = folder_.resolve(folder_.path(), t.init_uri).file;
    const auto id = file ? folder_.identity(*file) : std::nullopt;
    if (!id || hls_.inits_compared.insert(*id).second) {
        if (!c.problem.empty())
            problem(fmt::format("representation {}: {}: {}", shown(t.id), shown(t.init_uri), c.problem));
        for (const auto& d : c.disagreements)
            problem(fmt::format("representation {}: {}: {}", shown(t.id), shown(t.init_uri), d));
    }
    const std::string declared = rep.attribute("codecs").as_string();
    if (c.codecs && declared != *c.codecs)
        problem(fmt::format("representation {}: codecs says {} but its init segment's av1C says {}", shown(t.id),
                            shown(declared), *c.codecs));
    return c.colour;
}

// The cicp descriptors of the set or the representation: the colours a
// player is told before it reads av1C.
void DashCheck::check_colour_properties(const Timeline& t, const ColourDescription& colour, pugi::xml_node set,
                                        pugi::xml_node rep) {
    const std::pair<const char*, int> expected[] = {{mux::kCicpColourPrimaries, colour.primaries},
                                                    {mux::kCicpTransferCharacteristics, colour.transfer},
                                                    {mux::kCicpMatrixCoefficients, colour.matrix}};
    for (pugi::xml_node node : {set, rep})
        for (pugi::xml_node property : node.children()) {
            const std::string name = property.name();
            if (name != "SupplementalProperty" && name != "EssentialProperty") continue;
            const std::string scheme = property.attribute("schemeIdUri").as_string();
            const auto it = std::find_if(std::begin(expected), std::end(expected),
                                         [&](const auto& e) { return scheme == e.first; });
            if (it == std::end(expected)) continue;
            const std::string value = property.attribute("value").as_string();
            int said = -1;
            const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), said);
            if (error != std::errc() || end != value.data() + value.size() || said != it->second)
                problem(fmt::format("representation {}: {} {} says {} but its init segment's av1C says {}",
                                    shown(t.id), name, scheme, shown(value), it->second));
        }
}

// A segment's S (its start and duration in the timeline) against when its
// samples play: its decode time (tfdt) and durations (trun) after the init
// segment's edit list (an audio track's priming plays before 0). The first
// disagreement of a representation only; every segment's timing is kept for
// the audio's span against the video's.
void DashCheck::check_segment_times(Timeline& t, const mux::TrackTiming& track, std::size_t i,
                                    const std::vector<std::uint8_t>& segment, bool& reported) {
    const auto layout = mux::read_fragment_layout(segment);
    const auto timing = layout ? segment_timing(track, *layout) : std::nullopt;
    if (!timing) {
        problem(fmt::format("representation {}: segment {} ({}): its moof does not describe its samples", shown(t.id),
                            i + 1, shown(t.media_uris[i])));
        return;
    }
    if (i == 0) t.first = timing;
    if (i + 1 == t.media_uris.size()) t.last = timing;
    if (reported) return;
    if (std::abs(t.starts[i] - timing->presented_start()) > kTimelineTolerance ||
        std::abs(t.durations[i] - timing->presented()) > kTimelineTolerance) {
        problem(fmt::format("representation {}: segment {} starts at {:.6f} s and lasts {:.6f} s in the "
                            "SegmentTimeline, but its samples play from {:.6f} s for {:.6f} s",
                            shown(t.id), i + 1, t.starts[i], t.durations[i], timing->presented_start(),
                            timing->presented()));
        reported = true;
    }
}

// Each segment file read once (what it measures, for the bandwidth), or
// nullopt at the first one missing.
std::optional<std::vector<mux::SegmentSize>> DashCheck::check_segments(Timeline& t,
                                                                       const std::optional<mux::TrackTiming>& track) {
    ListingCheck listing(segments_listed_, fmt::format("representation {}", shown(t.id)));
    auto sizes = measure_segments(t, track, listing);
    for (const auto& line : listing.problems()) problem(fmt::format("representation {}: segment {}", shown(t.id), line));
    return sizes;
}

std::optional<std::vector<mux::SegmentSize>> DashCheck::measure_segments(Timeline& t,
                                                                         const std::optional<mux::TrackTiming>& track,
                                                                         ListingCheck& listing) {
    std::vector<mux::SegmentSize> sizes;
    bool times_reported = false;
    const std::string what = fmt::format("representation {}: segment", shown(t.id));
    for (std::size_t i = 0; i < t.media_uris.size(); ++i) {
        const std::string& uri = t.media_uris[i];
        const auto file = locate(uri, what);
        if (!file) return std::nullopt;
        const auto id = folder_.identity(*file);
        if (const auto* before = id ? listing.earlier(*id, uri) : nullptr) {
            sizes.push_back({t.durations[i], before->bytes});
            continue;
        }
        const FileBytes bytes = folder_.read(*file);
        if (bytes.status != ReadStatus::ok) {
            problem(fmt::format("{} \"{}\" is missing or not a regular file", what, shown(uri)));
            return std::nullopt;
        }
        ++segments_;
        if (id) listing.record(*id, bytes.bytes.size());
        sizes.push_back({t.durations[i], bytes.bytes.size()});
        if (track) check_segment_times(t, *track, i, bytes.bytes, times_reported);
    }
    return sizes;
}

// The EXTINF durations of the HLS playlist at uri, as the HLS checks read
// it, else read here (one the master playlist does not name); nullopt when
// there is none or it is refused (the HLS checks report it).
std::optional<std::vector<double>> DashCheck::hls_durations(const std::string& uri) {
    const UriResolution playlist = folder_.resolve(folder_.path(), uri);
    if (!playlist.file) return std::nullopt;
    if (const auto id = folder_.identity(*playlist.file))
        if (const auto known = hls_.playlist_durations.find(*id); known != hls_.playlist_durations.end())
            return known->second;
    const FileBytes text = folder_.read(*playlist.file);
    if (text.status != ReadStatus::ok) return std::nullopt;
    try {
        const std::uint64_t files = folder_.file_count();
        const auto media = mux::parse_media_playlist(
            std::string_view(reinterpret_cast<const char*>(text.bytes.data()), text.bytes.size()),
            playlist.file->path.string(), {files});
        if (media.segments_listed > files) return std::nullopt;
        std::vector<double> durations;
        for (const auto& s : media.segments) durations.push_back(s.duration);
        return durations;
    } catch (const mux::PlaylistError&) {
        return std::nullopt;
    }
}

// The HLS playlist over the same segments, checked against the samples by
// the HLS pass: each duration must match its EXTINF within a frame.
void DashCheck::check_against_hls(const Timeline& t) {
    const std::string playlist_uri = (fs::path(t.init_uri).parent_path() / "index.m3u8").generic_string();
    const auto extinf = hls_durations(playlist_uri);
    if (!extinf) return;
    const double tolerance = t.video && t.frame_seconds > 0 ? t.frame_seconds : kAudioTolerance;
    if (extinf->size() != t.durations.size()) {
        problem(fmt::format("representation {}: {} segments, but {} has {}", shown(t.id), t.durations.size(),
                            shown(playlist_uri), extinf->size()));
        return;
    }
    for (std::size_t i = 0; i < t.durations.size(); ++i)
        if (std::abs(t.durations[i] - (*extinf)[i]) > tolerance) {
            problem(fmt::format("representation {}: segment {} lasts {:.6f} s, its samples {:.6f} s", shown(t.id),
                                i + 1, t.durations[i], (*extinf)[i]));
            return;
        }
}

void DashCheck::check_representation(Timeline& t, pugi::xml_node rep, pugi::xml_node set) {
    const auto init = read(t.init_uri, fmt::format("representation {}: initialization", shown(t.id)));
    // How its segments' decode times map to the timeline: read once.
    const auto track = init ? mux::read_track_timing(*init) : std::nullopt;
    if (init && !track)
        problem(fmt::format("representation {}: {}: no track timescale (mdhd), or an edit list that cannot be read: "
                            "its segments are not placed on the timeline",
                            shown(t.id), shown(t.init_uri)));
    if (init && t.video)
        if (const auto colour = check_video_init(t, *init, rep)) check_colour_properties(t, *colour, set, rep);
    const auto sizes = check_segments(t, track);
    if (!sizes) return;
    check_against_hls(t);
    std::vector<double> durations;
    for (const auto& s : *sizes) durations.push_back(s.duration);
    const auto measured = mux::peak_bandwidth(*sizes, mux::target_duration(durations));
    const double declared = rep.attribute("bandwidth").as_double();
    if (measured > 0 && std::abs(declared - static_cast<double>(measured)) > kBandwidthTolerance * measured)
        problem(fmt::format("representation {}: bandwidth={} but the segments measure {} (more than 10% apart)",
                            shown(t.id), shown(rep.attribute("bandwidth").as_string()), measured));
}

// The first video representation is the reference: every other's segments
// must start where its segments start.
void DashCheck::check_alignment(Timeline t) {
    if (!reference_) {
        reference_ = std::move(t);
        return;
    }
    if (t.starts.size() != reference_->starts.size()) {
        problem(fmt::format("representation {} has {} segments and {} has {}: they do not line up", shown(t.id),
                            t.starts.size(), shown(reference_->id), reference_->starts.size()));
        return;
    }
    for (std::size_t i = 0; i < t.starts.size(); ++i)
        if (std::abs(t.starts[i] - reference_->starts[i]) > t.frame_seconds / 2) {
            problem(fmt::format("segment {} starts at {:.6f} s in representation {} but at {:.6f} s in {}: they do not "
                                "line up",
                                i + 1, t.starts[i], shown(t.id), reference_->starts[i], shown(reference_->id)));
            return;
        }
}

// Every audio representation starts and ends with the first video one.
void DashCheck::check_audio_spans() {
    if (!reference_ || !reference_->first || !reference_->last) return;
    for (const AudioSpan& a : audio_spans_)
        for (const std::string& m : audio_span_mismatches(a.first, a.last, *reference_->first, *reference_->last))
            problem(fmt::format("representation {} {}", shown(a.id), m));
}

void DashCheck::check_adaptation_set(pugi::xml_node set, const std::string& base) {
    const auto set_base = base_below(set, base, fmt::format("AdaptationSet {}", shown(set.attribute("id").as_string())));
    for (pugi::xml_node rep : set.children("Representation")) {
        ++representations_;
        if (!set_base) continue;
        const std::string id = rep.attribute("id").as_string();
        const auto rep_base = base_below(rep, *set_base, fmt::format("representation {}", shown(id)));
        if (!rep_base) continue;
        if (std::string(set.attribute("mimeType").as_string()) == "text/vtt") {
            check_text(rep, *rep_base);
            continue;
        }
        auto t = timeline_of(rep, set, *rep_base);
        if (!t) continue;
        check_representation(*t, rep, set);
        if (t->video) {
            check_alignment(std::move(*t));
        } else if (t->first && t->last) {
            audio_spans_.push_back({t->id, *t->first, *t->last});
        }
    }
}

void DashCheck::check_period(pugi::xml_node period, const std::string& base) {
    const auto period_base = base_below(period, base, fmt::format("Period {}", shown(period.attribute("id").as_string())));
    for (pugi::xml_node set : period.children("AdaptationSet")) {
        if (period_base) {
            check_adaptation_set(set, *period_base);
            continue;
        }
        for (pugi::xml_node rep = set.child("Representation"); rep; rep = rep.next_sibling("Representation"))
            ++representations_;
    }
}

int DashCheck::run() {
    const fs::path file = folder_.path() / kManifest;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(file, ec))) return 0;
    const auto bytes = read(kManifest, "the manifest");
    if (!bytes) return 0;
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed = doc.load_buffer(bytes->data(), bytes->size());
    if (!parsed) {
        problem(fmt::format("does not parse: {} at byte {}", parsed.description(), parsed.offset));
        return 0;
    }
    const pugi::xml_node mpd = doc.child("MPD");
    if (!mpd) {
        problem("no MPD element");
        return 0;
    }
    if (std::string(mpd.attribute("type").as_string("static")) != "static")
        problem(fmt::format("type is {}, not static", shown(mpd.attribute("type").as_string())));
    check_locations(mpd);
    if (too_many_representations(mpd)) return 0;
    const auto base = base_below(mpd, "", "the MPD");
    if (!base) return 0;
    for (pugi::xml_node period : mpd.children("Period")) check_period(period, *base);
    if (representations_ == 0) problem("no Representation");
    check_audio_spans();
    return segments_;
}

}  // namespace dash_check

int validate_dash_manifest(const std::filesystem::path& outdir, std::vector<std::string>& problems,
                           HlsFindings hls) {
    return dash_check::DashCheck(outdir, problems, std::move(hls)).run();
}

}  // namespace ladder::engine
