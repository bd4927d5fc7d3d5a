#pragma once
// What validate_hls_ladder's checks share: the Validator that walks an HLS
// ladder (ladder_validator.cpp: playlists, tracks, segments, renditions;
// hls_iframe_checks.cpp: I-frame playlists) and the small readers of byte
// ranges both use. Internal to engine/check/.
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "av/memory_input.hpp"
#include "engine/check/dash_validator.hpp"
#include "engine/check/hls_declarations.hpp"
#include "engine/check/ladder_path.hpp"
#include "engine/check/ladder_validator.hpp"
#include "engine/check/segment_listing.hpp"
#include "engine/check/segment_timing.hpp"
#include "engine/check/validation_text.hpp"
#include "mux/hls_playlist.hpp"

namespace ladder::engine::hls_validation {

namespace fs = std::filesystem;

// A decode time in the track's timescale, when known (plain fields: GCC 12
// warns falsely about a std::optional<std::uint64_t> handed along here).
struct DecodeTime {
    bool known = false;
    std::uint64_t ticks = 0;
};

// What checking one media segment found out.
struct SegmentFacts {
    std::uint64_t bytes = 0;  // what a player fetches for it (0 when it cannot be read)
    // The decode time after its last sample (tfdt + durations): where the
    // next segment must start.
    DecodeTime end_time;
    // When its samples play, after the init segment's edit list (when its
    // moof and the init segment say).
    std::optional<SegmentTiming> timing;
};

inline std::string shown(std::string_view text) { return shown_in_problem(text); }

inline std::string_view as_text(const std::vector<std::uint8_t>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Whether range lies inside a file of size bytes; offset + length may not
// even fit in 64 bits.
inline bool range_fits(const mux::ByteRange& range, std::uint64_t size) {
    return range.offset <= size && range.length <= size - range.offset;
}

// what: the tag or attribute that gives the range ("EXT-X-BYTERANGE").
inline std::string out_of_file(std::string_view what, const mux::ByteRange& range, std::uint64_t size) {
    return fmt::format("{} {}@{} reaches beyond the file's {} bytes", what, range.length, range.offset, size);
}

inline std::vector<std::uint8_t> sub_range(const std::vector<std::uint8_t>& bytes, const mux::ByteRange& range) {
    const auto first = bytes.begin() + static_cast<std::ptrdiff_t>(range.offset);
    return {first, first + static_cast<std::ptrdiff_t>(range.length)};
}

// What the folder's files can hold, for the one-line refusal of a count
// beyond it.
inline std::string beyond_the_files(std::uint64_t files) {
    return fmt::format("but the ladder's folder holds {} files", files);
}

class Validator {
public:
    Validator(const fs::path& outdir, const ValidationOptions& options) : folder_(outdir), options_(options) {}

    ValidationReport run();

private:
    void problem(const fs::path& where, const std::string& what) {
        report_.problems.push_back(fmt::format("{}: {}", shown_name(where), what));
    }
    std::string shown_name(const fs::path& file) const {
        return shown(file.lexically_relative(folder_.path()).generic_string());
    }

    std::optional<LadderFile> follow(const fs::path& playlist, const std::string& uri);
    std::optional<std::vector<std::uint8_t>> read_file(const LadderFile& file, std::string_view missing);
    // A file a playlist lists, read and recorded in listing the first time
    // it is listed; nullopt when listed before, outside the ladder or not
    // readable (after a problem line).
    struct ListedFile {
        LadderFile file;
        std::vector<std::uint8_t> bytes;
    };
    std::optional<ListedFile> read_listed(const fs::path& playlist, const std::string& uri, ListingCheck& listing,
                                          std::string_view missing);
    std::optional<mux::MasterPlaylist> load_master(const LadderFile& file);
    // A media playlist read and parsed, its EXTINF durations recorded for
    // the DASH checks; nullopt after a problem line.
    std::optional<mux::MediaPlaylist> load_media(const LadderFile& file);
    std::optional<mux::MediaPlaylist> read_media(const LadderFile& file);
    // A media playlist's checks, done once per file however often it is named.
    TrackCheck track(const LadderFile& playlist, bool video);
    TrackCheck check_track(const LadderFile& playlist, bool video);
    InitFacts init_facts(const std::vector<std::uint8_t>& init, const LadderFile& file);
    SegmentFacts check_entry(const std::vector<std::uint8_t>& init, const fs::path& playlist,
                             const mux::MediaSegmentEntry& entry, bool video, ListingCheck& listing,
                             DecodeTime& next_start);
    SegmentFacts check_segment(const std::vector<std::uint8_t>& init, const fs::path& playlist, const LadderFile& seg,
                               const mux::MediaSegmentEntry& entry, bool video, DecodeTime expected_start);
    std::optional<SegmentFacts> check_samples(const std::vector<std::uint8_t>& init,
                                              const std::vector<std::uint8_t>& bytes, const fs::path& seg,
                                              double extinf, bool video, DecodeTime expected_start);
    DecodeTime check_decode_time(const fs::path& seg, const mux::FragmentLayout& layout,
                                 const mux::TrackTiming& track, DecodeTime expected_start);
    // The segment's samples, from `first` on, decoded (--decode).
    void decode_segment(av::MemoryInput& in, av::PacketPtr first, const fs::path& seg);
    void report_listing(const fs::path& playlist, const ListingCheck& listing);
    std::optional<std::vector<std::uint8_t>> map_range(const fs::path& playlist, const mux::MediaPlaylist& p,
                                                       std::vector<std::uint8_t> file);
    // An I-frame playlist's checks, once per file; what its init's av1C says.
    InitFacts iframe_playlist(const LadderFile& playlist);
    void check_iframes(const mux::MediaPlaylist& p, const LadderFile& playlist, const std::vector<std::uint8_t>& init);
    void check_iframe(const fs::path& playlist, const mux::MediaSegmentEntry& s, const std::vector<std::uint8_t>& bytes,
                      const std::vector<std::uint8_t>& init);
    // A variant's or I-frame stream's CODECS and VIDEO-RANGE against its init segment.
    void check_declared_video(const fs::path& master, const std::string& stream, const mux::HlsAttributes& attrs,
                              const InitFacts& init);
    void check_bandwidth(const fs::path& master, const mux::HlsAttributes& attrs, const TrackCheck& video,
                         const std::vector<const TrackCheck*>& audio);
    // Every AUDIO rendition's track, by URI, and each group's members.
    void check_audio_media(const fs::path& master_file, const mux::MasterPlaylist& master);
    std::vector<const TrackCheck*> audio_group(const fs::path& master_file, const mux::HlsAttributes& variant);
    void check_audio_alignment(const fs::path& master_file, const TrackCheck& reference);
    // Every SUBTITLES rendition: segmented WebVTT with X-TIMESTAMP-MAP, its
    // segments where the video's are; every variant's group exists.
    void check_subtitles(const fs::path& master_file, const mux::MasterPlaylist& master, const TrackCheck* reference);
    void check_subtitle_playlist(const LadderFile& entry, const TrackCheck* reference);
    void check_variant_alignment(const fs::path& playlist, const TrackCheck& t);

    LadderFolder folder_;
    ValidationOptions options_;
    ValidationReport report_;
    std::map<std::string, TrackCheck> audio_tracks_;  // by URI as the master playlist writes it
    std::map<std::string, std::vector<std::string>> audio_groups_;  // GROUP-ID -> URIs
    std::map<std::pair<FileId, bool>, TrackCheck> tracks_;  // by playlist file and whether it is video
    std::map<FileId, InitFacts> iframe_playlists_;
    std::set<FileId> subtitle_playlists_;
    HlsFindings findings_;  // for the DASH checks: inits compared, playlists read
    SegmentRegistry media_segments_;   // listed by media playlists (video, audio, subtitles)
    SegmentRegistry iframe_segments_;  // listed by I-frame playlists
    std::optional<TrackCheck> reference_;  // the first variant's track: the others must line up with it
    std::string reference_uri_;
};

}  // namespace ladder::engine::hls_validation
