#include "engine/dash_validator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <pugixml.hpp>

#include "engine/init_segment_codecs.hpp"
#include "engine/ladder_path.hpp"
#include "engine/segment_timing.hpp"
#include "engine/validation_text.hpp"
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
    std::string init_uri;
    std::vector<std::string> media_uris;
    std::vector<double> starts;     // seconds
    std::vector<double> durations;  // seconds
    // When the first and the last segment play (when both could be read).
    std::optional<SegmentTiming> first, last;
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

class DashCheck {
public:
    DashCheck(const fs::path& outdir, std::vector<std::string>& problems) : folder_(outdir), problems_(problems) {}

    int run();

private:
    void problem(const std::string& what) { problems_.push_back(fmt::format("{}: {}", kManifest, what)); }
    std::optional<Timeline> timeline_of(pugi::xml_node rep, pugi::xml_node set);
    void check_representation(Timeline& t, pugi::xml_node rep);
    // Each S against when its segment's samples play.
    void check_segment_times(Timeline& t, const std::vector<std::uint8_t>& init, std::size_t i,
                             const std::vector<std::uint8_t>& segment);
    // A subtitle Representation: one whole WebVTT file named by BaseURL.
    void check_text(pugi::xml_node rep);
    std::optional<std::vector<std::uint8_t>> read(const std::string& uri, const std::string& what);

    LadderFolder folder_;
    std::vector<std::string>& problems_;
    int segments_ = 0;
};

std::optional<std::vector<std::uint8_t>> DashCheck::read(const std::string& uri, const std::string& what) {
    UriResolution r = folder_.resolve(folder_.path(), uri);
    if (!r.file) {
        problem(fmt::format("{} \"{}\" {}", what, shown(uri), describe(r.refusal)));
        return std::nullopt;
    }
    FileBytes b = folder_.read(*r.file);
    if (b.status != ReadStatus::ok) {
        problem(fmt::format("{} \"{}\" is missing or not a regular file", what, shown(uri)));
        return std::nullopt;
    }
    return std::move(b.bytes);
}

void DashCheck::check_text(pugi::xml_node rep) {
    const std::string id = rep.attribute("id").as_string();
    const std::string uri = rep.child_value("BaseURL");
    if (uri.empty()) {
        problem(fmt::format("text representation {} has no BaseURL", shown(id)));
        return;
    }
    const auto bytes = read(uri, fmt::format("text representation {}'s file", shown(id)));
    if (!bytes) return;
    ++segments_;
    const std::string head(bytes->begin(), bytes->begin() + std::min<std::size_t>(bytes->size(), 6));
    if (head != "WEBVTT")
        problem(fmt::format("text representation {}: \"{}\" does not start with WEBVTT", shown(id), shown(uri)));
}

std::optional<Timeline> DashCheck::timeline_of(pugi::xml_node rep, pugi::xml_node set) {
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
    t.init_uri = tmpl.attribute("initialization").as_string();
    const std::string media = tmpl.attribute("media").as_string();
    long long number = tmpl.attribute("startNumber").as_llong(1);
    pugi::xml_node list = tmpl.child("SegmentTimeline");
    if (!list) {
        problem(fmt::format("representation {} has no SegmentTimeline", shown(t.id)));
        return std::nullopt;
    }
    long long now = 0;
    for (pugi::xml_node s : list.children("S")) {
        if (s.attribute("t")) now = s.attribute("t").as_llong();
        const long long d = s.attribute("d").as_llong();
        const long long repeats = s.attribute("r").as_llong(0);
        if (d <= 0 || repeats < 0) {
            problem(fmt::format("representation {}: an S with d={} r={}", shown(t.id), d, repeats));
            return std::nullopt;
        }
        for (long long i = 0; i <= repeats; ++i, ++number, now += d) {
            auto uri = media_uri(media, number);
            if (!uri) {
                problem(fmt::format("representation {}: media=\"{}\" has no $Number$", shown(t.id), shown(media)));
                return std::nullopt;
            }
            t.media_uris.push_back(*uri);
            t.starts.push_back(static_cast<double>(now) / static_cast<double>(timescale));
            t.durations.push_back(static_cast<double>(d) / static_cast<double>(timescale));
        }
    }
    if (t.media_uris.empty()) problem(fmt::format("representation {}: an empty SegmentTimeline", shown(t.id)));
    return t;
}

void DashCheck::check_segment_times(Timeline& t, const std::vector<std::uint8_t>& init, std::size_t i,
                                    const std::vector<std::uint8_t>& segment) {
    const auto timing = segment_timing(init, segment);
    if (!timing) {
        problem(fmt::format("representation {}: segment {} ({}): its moof does not describe its samples", shown(t.id),
                            i + 1, shown(t.media_uris[i])));
        return;
    }
    if (i == 0) t.first = timing;
    if (i + 1 == t.media_uris.size()) t.last = timing;
    if (std::abs(t.starts[i] - timing->presented_start()) > kTimelineTolerance ||
        std::abs(t.durations[i] - timing->presented()) > kTimelineTolerance)
        problem(fmt::format("representation {}: segment {} starts at {:.6f} s and lasts {:.6f} s in the "
                            "SegmentTimeline, but its samples play from {:.6f} s for {:.6f} s",
                            shown(t.id), i + 1, t.starts[i], t.durations[i], timing->presented_start(),
                            timing->presented()));
}

void DashCheck::check_representation(Timeline& t, pugi::xml_node rep) {
    const auto init = read(t.init_uri, fmt::format("representation {}: initialization", shown(t.id)));
    if (init && t.video) {
        const InitCodecs c = av1_codecs_of_init(*init, folder_.path() / t.init_uri);
        if (!c.problem.empty()) problem(fmt::format("representation {}: {}: {}", shown(t.id), shown(t.init_uri), c.problem));
        const std::string declared = rep.attribute("codecs").as_string();
        if (c.codecs && declared != *c.codecs)
            problem(fmt::format("representation {}: codecs says {} but its init segment's av1C says {}", shown(t.id),
                                shown(declared), *c.codecs));
    }
    std::vector<mux::SegmentSize> sizes;
    for (std::size_t i = 0; i < t.media_uris.size(); ++i) {
        const auto bytes = read(t.media_uris[i], fmt::format("representation {}: segment", shown(t.id)));
        if (!bytes) return;
        ++segments_;
        sizes.push_back({t.durations[i], bytes->size()});
        if (init) check_segment_times(t, *init, i, *bytes);
    }
    // The HLS playlist over the same segments, checked against the samples
    // by the HLS pass: each duration must match its EXTINF within a frame.
    const fs::path folder = fs::path(t.init_uri).parent_path();
    UriResolution playlist = folder_.resolve(folder_.path(), (folder / "index.m3u8").generic_string());
    if (playlist.file) {
        FileBytes text = folder_.read(*playlist.file);
        if (text.status == ReadStatus::ok) {
            try {
                const auto media = mux::parse_media_playlist(std::string(text.bytes.begin(), text.bytes.end()),
                                                             playlist.file->path.string());
                const double tolerance = t.video && t.frame_seconds > 0 ? t.frame_seconds : kAudioTolerance;
                if (media.segments.size() != t.durations.size())
                    problem(fmt::format("representation {}: {} segments, but {} has {}", shown(t.id),
                                        t.durations.size(), shown((folder / "index.m3u8").generic_string()),
                                        media.segments.size()));
                else
                    for (std::size_t i = 0; i < t.durations.size(); ++i)
                        if (std::abs(t.durations[i] - media.segments[i].duration) > tolerance) {
                            problem(fmt::format("representation {}: segment {} lasts {:.6f} s, its samples {:.6f} s",
                                                shown(t.id), i + 1, t.durations[i], media.segments[i].duration));
                            break;
                        }
            } catch (const mux::PlaylistError&) {
                // the HLS pass reports the playlist itself
            }
        }
    }
    std::vector<double> durations;
    for (const auto& s : sizes) durations.push_back(s.duration);
    const auto measured = mux::peak_bandwidth(sizes, mux::target_duration(durations));
    const double declared = rep.attribute("bandwidth").as_double();
    if (measured > 0 && std::abs(declared - static_cast<double>(measured)) > kBandwidthTolerance * measured)
        problem(fmt::format("representation {}: bandwidth={} but the segments measure {} (more than 10% apart)",
                            shown(t.id), shown(rep.attribute("bandwidth").as_string()), measured));
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
    std::optional<Timeline> reference;
    std::vector<Timeline> audio;
    int representations = 0;
    for (pugi::xml_node period : mpd.children("Period"))
        for (pugi::xml_node set : period.children("AdaptationSet"))
            for (pugi::xml_node rep : set.children("Representation")) {
                ++representations;
                if (std::string(set.attribute("mimeType").as_string()) == "text/vtt") {
                    check_text(rep);
                    continue;
                }
                auto t = timeline_of(rep, set);
                if (!t) continue;
                check_representation(*t, rep);
                if (!t->video) {
                    audio.push_back(std::move(*t));
                    continue;
                }
                if (!reference) {
                    reference = std::move(t);
                } else if (t->starts.size() != reference->starts.size()) {
                    problem(fmt::format("representation {} has {} segments and {} has {}: they do not line up",
                                        shown(t->id), t->starts.size(), shown(reference->id), reference->starts.size()));
                } else {
                    for (std::size_t i = 0; i < t->starts.size(); ++i)
                        if (std::abs(t->starts[i] - reference->starts[i]) > t->frame_seconds / 2) {
                            problem(fmt::format("segment {} starts at {:.6f} s in representation {} but at {:.6f} s "
                                                "in {}: they do not line up",
                                                i + 1, t->starts[i], shown(t->id), reference->starts[i],
                                                shown(reference->id)));
                            break;
                        }
                }
            }
    if (representations == 0) problem("no Representation");
    if (reference && reference->first && reference->last)
        for (const Timeline& a : audio)
            if (a.first && a.last)
                for (const std::string& m : audio_span_mismatches(*a.first, *a.last, *reference->first, *reference->last))
                    problem(fmt::format("representation {} {}", shown(a.id), m));
    return segments_;
}

}  // namespace dash_check

int validate_dash_manifest(const std::filesystem::path& outdir, std::vector<std::string>& problems) {
    return dash_check::DashCheck(outdir, problems).run();
}

}  // namespace ladder::engine
