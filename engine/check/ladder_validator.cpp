#include "engine/check/ladder_validator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "av/av_error.hpp"
#include "av/memory_input.hpp"
#include "engine/check/chunk_decode.hpp"
#include "engine/check/dash_validator.hpp"
#include "engine/check/hls_declarations.hpp"
#include "engine/check/init_segment_codecs.hpp"
#include "engine/check/ladder_path.hpp"
#include "engine/check/segment_listing.hpp"
#include "engine/check/segment_timing.hpp"
#include "engine/check/hls_ladder_validator.hpp"
#include "engine/check/validation_text.hpp"
#include "mux/av1_sequence_header.hpp"
#include "mux/bmff_boxes.hpp"
#include "mux/hls_playlist.hpp"

namespace ladder::engine {

namespace hls_validation {

// The file a URI in playlist names (relative to the playlist's folder), or
// nullopt after a problem line: nothing outside the ladder is ever opened.
std::optional<LadderFile> Validator::follow(const fs::path& playlist, const std::string& uri) {
    UriResolution r = folder_.resolve(playlist.parent_path(), uri);
    if (r.file) return std::move(r.file);
    problem(playlist, fmt::format("URI \"{}\" {}", shown(uri), refusal_in_words(r.refusal)));
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

// The reader keeps no more entries than the folder has files: a playlist
// listing more names some file twice (or a missing one), and is refused in
// one line instead of being believed.
std::optional<Validator::ListedFile> Validator::read_listed(const fs::path& playlist, const std::string& uri,
                                                           ListingCheck& listing, std::string_view missing) {
    const auto file = follow(playlist, uri);
    if (!file) return std::nullopt;
    const auto id = folder_.identity(*file);
    if (id && listing.earlier(*id, uri)) return std::nullopt;
    auto bytes = read_file(*file, missing);
    if (!bytes) return std::nullopt;
    if (id) listing.record(*id, bytes->size());
    return ListedFile{*file, std::move(*bytes)};
}

std::optional<mux::MasterPlaylist> Validator::load_master(const LadderFile& file) {
    auto bytes = read_file(file, "missing: not a complete ladder (the master playlist is written last)");
    if (!bytes) return std::nullopt;
    const std::uint64_t files = folder_.file_count();
    try {
        auto p = mux::parse_master_playlist(as_text(*bytes), file.path.string(), {files});
        if (p.entries_listed <= files) return p;
        problem(file.path, fmt::format("lists {} variants, renditions and I-frame streams {} (not checked one by one)",
                                       p.entries_listed, beyond_the_files(files)));
    } catch (const mux::PlaylistError& e) {
        problem(file.path, fmt::format("does not parse: {}", e.what()));
    }
    return std::nullopt;
}

std::optional<mux::MediaPlaylist> Validator::load_media(const LadderFile& file) {
    auto p = read_media(file);
    // The DASH checks compare their timelines with it without reading it again.
    if (const auto id = folder_.identity(file)) {
        auto& durations = findings_.playlist_durations[*id];
        if (p) {
            durations.emplace();
            for (const auto& s : p->segments) durations->push_back(s.duration);
        }
    }
    return p;
}

std::optional<mux::MediaPlaylist> Validator::read_media(const LadderFile& file) {
    auto bytes = read_file(file, "missing (referenced by the master playlist)");
    if (!bytes) return std::nullopt;
    const std::uint64_t files = folder_.file_count();
    try {
        auto p = mux::parse_media_playlist(as_text(*bytes), file.path.string(), {files});
        if (p.segments_listed <= files) return p;
        problem(file.path, fmt::format("lists {} segments {}: segment files listed more than once, or missing (not "
                                       "checked one by one)",
                                       p.segments_listed, beyond_the_files(files)));
    } catch (const mux::PlaylistError& e) {
        problem(file.path, fmt::format("does not parse: {}", e.what()));
    }
    return std::nullopt;
}

// The codecs string and colour of the init segment's av1C; av1C's own
// fields and the colr boxes are compared with it once per init segment.
InitFacts Validator::init_facts(const std::vector<std::uint8_t>& init, const LadderFile& file) {
    InitCodecs c = av1_codecs_of_init(init, file.path);
    const auto id = folder_.identity(file);
    if (!id || findings_.inits_compared.insert(*id).second) {
        if (!c.problem.empty()) problem(file.path, c.problem);
        for (const auto& d : c.disagreements) problem(file.path, d);
    }
    return {c.codecs.value_or(""), c.colour};
}

SegmentFacts Validator::check_segment(const std::vector<std::uint8_t>& init, const fs::path& playlist,
                                      const LadderFile& file, const mux::MediaSegmentEntry& entry, bool video,
                                      DecodeTime expected_start) {
    auto bytes = read_file(file, "missing (referenced by its playlist)");
    if (!bytes) return {};
    // A player fetches only the byte range, when there is one.
    if (entry.byte_range) {
        if (!range_fits(*entry.byte_range, bytes->size())) {
            problem(playlist, fmt::format("{}: {}", shown(entry.uri), out_of_file("EXT-X-BYTERANGE", *entry.byte_range, bytes->size())));
            return {};
        }
        *bytes = sub_range(*bytes, *entry.byte_range);
    }
    ++report_.segments;
    auto facts = check_samples(init, *bytes, file.path, entry.duration, video, expected_start);
    return facts ? std::move(*facts) : SegmentFacts{bytes->size(), {}, std::nullopt};
}

// The segment's first sample, its durations and where it starts; nullopt
// after a problem that leaves its timing unknown.
std::optional<SegmentFacts> Validator::check_samples(const std::vector<std::uint8_t>& init,
                                                     const std::vector<std::uint8_t>& bytes, const fs::path& seg,
                                                     double extinf, bool video,
                                                     DecodeTime expected_start) {
    std::vector<std::uint8_t> joined = init;
    joined.insert(joined.end(), bytes.begin(), bytes.end());
    try {
        av::MemoryInput in(std::move(joined), seg.string());
        av::PacketPtr pkt = av::make_packet();
        if (!in.read(pkt.get())) {
            problem(seg, "holds no samples");
            return std::nullopt;
        }
        if (video) {
            const bool key = pkt->flags & AV_PKT_FLAG_KEY;
            const bool header = mux::parse_sequence_header({pkt->data, static_cast<std::size_t>(pkt->size)}).has_value();
            if (!key || !header) problem(seg, "does not start with a key frame carrying a sequence header");
            if (options_.decode) decode_segment(in, std::move(pkt), seg);
        }
    } catch (const std::exception& e) {
        problem(seg, fmt::format("cannot be read with its init segment: {}", e.what()));
        return std::nullopt;
    }
    // Durations as a player sees them: the fragment's own sample durations
    // in the init segment's timescale, less what its edit list hides (an
    // audio track's priming, before 0).
    const auto track = mux::read_track_timing(init);
    const auto layout = mux::read_fragment_layout(bytes);
    const auto timing = track && layout ? segment_timing(*track, *layout) : std::nullopt;
    if (!timing) {
        problem(seg, "its moof does not describe its samples");
        return std::nullopt;
    }
    const double real = timing->presented();
    if (std::abs(real - extinf) > kExtinfTolerance)
        problem(seg, fmt::format("EXTINF says {:.6f} s but its samples last {:.6f} s", extinf, real));
    return SegmentFacts{bytes.size(), check_decode_time(seg, *layout, *track, expected_start), timing};
}

// A CMAF segment starts with a key frame, so it decodes on its own; each
// sample is one frame shown.
void Validator::decode_segment(av::MemoryInput& in, av::PacketPtr first, const fs::path& seg) {
    EncodedChunk chunk;
    av::CodecParametersPtr par = av::make_codec_parameters();
    av::check(avcodec_parameters_copy(par.get(), in.get()->streams[0]->codecpar), "the segment's parameters");
    chunk.codecpar = std::move(par);
    chunk.packets.push_back(std::move(first));
    for (av::PacketPtr p = av::make_packet(); in.read(p.get()); p = av::make_packet())
        chunk.packets.push_back(std::move(p));
    const auto why = why_undecodable(chunk, chunk.packets.size(), options_.decode_threads, Av1Decoder::strict);
    if (why) problem(seg, fmt::format("{} (of its {} samples)", *why, chunk.packets.size()));
    else report_.decoded_frames += static_cast<long>(chunk.packets.size());
}

// A segment listed again, or out of its place, starts where it started
// before: its decode time (tfdt) must be where the segment before it ended.
// Both are decode times, the edit list's shift (an audio track's priming)
// in each alike; the message gives them as presentation times, as the
// player places them. Returns where it ends (tfdt + durations), when its
// moof says.
DecodeTime Validator::check_decode_time(const fs::path& seg, const mux::FragmentLayout& layout,
                                        const mux::TrackTiming& track, DecodeTime expected_start) {
    const auto seconds = [&](std::uint64_t ticks) { return presentation_seconds(track, ticks); };
    const auto start = layout.decode_time;
    if (!start || !layout.duration) return {};
    if (expected_start.known && *start != expected_start.ticks)
        problem(seg, fmt::format("its samples start at {:.6f} s (tfdt) but the segment before it in the playlist ends "
                                 "at {:.6f} s: the timeline does not go on",
                                 seconds(*start), seconds(expected_start.ticks)));
    if (*layout.duration > std::numeric_limits<std::uint64_t>::max() - *start) return {};
    return {true, *start + *layout.duration};
}

// One entry of a media playlist: its file checked, unless listed before.
// Returns what a player fetches for it and, when checked here, when it plays.
SegmentFacts Validator::check_entry(const std::vector<std::uint8_t>& init, const fs::path& playlist,
                                    const mux::MediaSegmentEntry& entry, bool video, ListingCheck& listing,
                                    DecodeTime& next_start) {
    const auto seg = follow(playlist, entry.uri);
    const auto id = seg ? folder_.identity(*seg) : std::nullopt;
    if (id)
        if (const auto* before = listing.earlier(*id, entry.uri)) {
            next_start = {};
            return {before->bytes, {}, std::nullopt};
        }
    SegmentFacts facts = seg ? check_segment(init, playlist, *seg, entry, video, next_start) : SegmentFacts{};
    if (id) listing.record(*id, facts.bytes);
    next_start = facts.end_time;
    return facts;
}

void Validator::report_listing(const fs::path& playlist, const ListingCheck& listing) {
    for (const auto& line : listing.problems()) problem(playlist, line);
}

TrackCheck Validator::track(const LadderFile& playlist, bool video) {
    const auto id = folder_.identity(playlist);
    if (!id) return check_track(playlist, video);  // missing: reported where it is named
    const auto key = std::pair(*id, video);
    if (const auto it = tracks_.find(key); it != tracks_.end()) return it->second;
    return tracks_.emplace(key, check_track(playlist, video)).first->second;
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
    auto whole = read_file(*map, "missing (EXT-X-MAP)");
    const auto init = whole ? map_range(playlist_file, *p, std::move(*whole)) : std::nullopt;
    if (!init) return t;
    if (video) t.init = init_facts(*init, *map);
    ListingCheck listing(media_segments_, shown_name(playlist_file));
    DecodeTime next_start;  // where the next segment's samples must start
    double sum = 0;
    for (const auto& s : p->segments) {
        if (std::lround(s.duration) > p->target_duration)
            problem(playlist_file, fmt::format("EXTINF {:.6f} of {} rounds above EXT-X-TARGETDURATION {}", s.duration,
                                               shown(s.uri), p->target_duration));
        const SegmentFacts facts = check_entry(*init, playlist_file, s, video, listing, next_start);
        if (&s == &p->segments.front()) t.first = facts.timing;
        if (&s == &p->segments.back()) t.last = facts.timing;
        sum += s.duration;
        t.boundaries.push_back(sum);
        t.sizes.push_back({s.duration, facts.bytes});
    }
    report_listing(playlist_file, listing);
    t.target_duration = p->target_duration;
    t.ok = true;
    return t;
}

// The init segment as a player fetches it: the EXT-X-MAP's BYTERANGE of
// the file, when it has one; nullopt after a problem line.
std::optional<std::vector<std::uint8_t>> Validator::map_range(const fs::path& playlist, const mux::MediaPlaylist& p,
                                                              std::vector<std::uint8_t> file) {
    if (!p.map_byte_range) return file;
    if (range_fits(*p.map_byte_range, file.size())) return sub_range(file, *p.map_byte_range);
    problem(playlist, fmt::format("EXT-X-MAP {}: {}", shown(p.map_uri.value_or("")),
                                  out_of_file("BYTERANGE", *p.map_byte_range, file.size())));
    return std::nullopt;
}

void Validator::check_declared_video(const fs::path& master, const std::string& stream,
                                     const mux::HlsAttributes& attrs, const InitFacts& init) {
    for (const std::string& p : declared_video_problems(stream, attrs, init)) problem(master, p);
}

void Validator::check_bandwidth(const fs::path& master, const mux::HlsAttributes& attrs, const TrackCheck& video,
                                const std::vector<const TrackCheck*>& audio) {
    for (const std::string& p : bandwidth_problems(attrs, video, audio)) problem(master, p);
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
        if (const auto playlist = follow(master_file, *uri)) audio_tracks_[*uri] = track(*playlist, false);
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
    for (const auto& [uri, track] : audio_tracks_)
        if (track.ok)
            for (const std::string& p : audio_alignment_problems(shown(uri), track, reference)) problem(master_file, p);
}

void Validator::check_subtitle_playlist(const LadderFile& entry, const TrackCheck* reference) {
    if (const auto id = folder_.identity(entry); id && !subtitle_playlists_.insert(*id).second) return;
    const auto playlist = load_media(entry);
    if (!playlist) return;
    ListingCheck listing(media_segments_, shown_name(entry.path));
    std::vector<double> ends;
    double end = 0;
    for (const auto& s : playlist->segments) {
        ends.push_back(end += s.duration);
        const auto seg = read_listed(entry.path, s.uri, listing, "missing (referenced by its playlist)");
        if (!seg) continue;
        ++report_.segments;
        const std::string text(seg->bytes.begin(),
                               seg->bytes.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(seg->bytes.size(), 256)));
        if (text.rfind("WEBVTT", 0) != 0)
            problem(seg->file.path, "does not start with WEBVTT");
        else if (text.substr(0, text.find("\n\n")).find("X-TIMESTAMP-MAP=") == std::string::npos)
            problem(seg->file.path, "has no X-TIMESTAMP-MAP in its header (players cannot place its cues)");
    }
    report_listing(entry.path, listing);
    if (reference)
        for (const std::string& p : subtitle_alignment_problems(ends, *reference)) problem(entry.path, p);
}

void Validator::check_subtitles(const fs::path& master_file, const mux::MasterPlaylist& master,
                                const TrackCheck* reference) {
    std::set<std::string> groups;
    for (const auto& m : master.media) {
        if (m.get("TYPE") != "SUBTITLES") continue;
        groups.insert(m.get("GROUP-ID").value_or(""));
        if (const auto uri = m.get("URI"))
            if (const auto entry = follow(master_file, *uri)) check_subtitle_playlist(*entry, reference);
    }
    for (const auto& v : master.variants)
        if (const auto group = v.attributes.get("SUBTITLES"); group && !groups.count(*group))
            problem(master_file, fmt::format("variant {}: SUBTITLES=\"{}\" names no EXT-X-MEDIA group", shown(v.uri),
                                             shown(*group)));
}

// The first variant is the reference: every other's segments must end
// where its segments end.
void Validator::check_variant_alignment(const fs::path& playlist, const TrackCheck& t) {
    if (!reference_) return;
    for (const std::string& p : variant_alignment_problems(t, *reference_, reference_uri_)) problem(playlist, p);
}

ValidationReport Validator::run() {
    // Even the master playlist's own name may be a link leading out.
    const auto master_entry = follow(folder_.path() / "master.m3u8", "master.m3u8");
    if (!master_entry) return report_;
    const fs::path& master_file = master_entry->path;
    const auto loaded = load_master(*master_entry);
    if (!loaded) return report_;
    const mux::MasterPlaylist& master = *loaded;
    if (master.variants.empty()) problem(master_file, "no variant streams");
    if (!master.independent_segments) problem(master_file, "no EXT-X-INDEPENDENT-SEGMENTS");

    check_audio_media(master_file, master);
    for (const auto& v : master.variants) {
        ++report_.variants;
        const auto entry = follow(master_file, v.uri);
        if (!entry) continue;
        const TrackCheck t = track(*entry, true);
        if (!t.ok) continue;
        check_declared_video(master_file, fmt::format("variant {}", shown(v.uri)), v.attributes, t.init);
        check_bandwidth(master_file, v.attributes, t, audio_group(master_file, v.attributes));
        check_variant_alignment(entry->path, t);
        if (!reference_) {
            reference_ = t;
            reference_uri_ = shown(v.uri);
        }
    }
    if (reference_) check_audio_alignment(master_file, *reference_);
    check_subtitles(master_file, master, reference_ ? &*reference_ : nullptr);
    for (const auto& i : master.iframe_streams)
        if (auto uri = i.get("URI"))
            if (const auto playlist = follow(master_file, *uri))
                check_declared_video(master_file, fmt::format("I-frame stream {}", shown(*uri)), i,
                                     iframe_playlist(*playlist));
    report_.segments += validate_dash_manifest(folder_.path(), report_.problems, std::move(findings_));
    return report_;
}

}  // namespace hls_validation

ValidationReport validate_hls_ladder(const std::filesystem::path& outdir, const ValidationOptions& options) {
    return hls_validation::Validator(outdir, options).run();
}

}  // namespace ladder::engine
