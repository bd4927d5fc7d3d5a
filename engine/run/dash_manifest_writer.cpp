#include "engine/run/dash_manifest_writer.hpp"

#include <algorithm>

#include "engine/media/language_tag.hpp"
#include "engine/output/output_paths.hpp"
#include "mux/av1_codecs_string.hpp"
#include "mux/dash_manifest.hpp"
#include "mux/hls_bandwidth.hpp"
#include "mux/hls_track_playlists.hpp"

namespace ladder::engine {

namespace {

// Segment times in the packets' time base NUM/DEN are exact in units of
// 1/DEN s: each tick is NUM of them. They are presentation times: an audio
// track's first segment starts at 0, after the priming its init segment's
// edit list hides (mux/cmaf_track_writer.hpp), as players place it.
mux::DashTimeline timeline_of(const std::vector<mux::CmafSegment>& segments, AVRational time_base) {
    mux::DashTimeline t;
    t.timescale = time_base.den;
    for (const auto& s : segments)
        t.segments.push_back({s.first_pts * time_base.num, s.duration_pts * time_base.num});
    return t;
}

// As HLS's BANDWIDTH, for this track alone.
std::uint64_t peak_of(const std::vector<mux::CmafSegment>& segments) {
    const auto sizes = mux::segment_sizes(segments);
    std::vector<double> durations;
    for (const auto& s : sizes) durations.push_back(s.duration);
    return mux::peak_bandwidth(sizes, mux::target_duration(durations));
}

double seconds_of(const std::vector<mux::CmafSegment>& segments) {
    double total = 0;
    for (const auto& s : segments) total += s.duration;
    return total;
}

}  // namespace

void write_dash_manifest(const mux::OutputFolder& outdir, const SourceInfo& src,
                         const Rungs& rungs,
                         const std::vector<AudioRenditionWriter*>& audio_renditions,
                         const AudioTracks* audio,
                         const std::vector<const SubtitleRenditionWriter*>& subtitle_renditions,
                         const SubtitleTracks* subtitles) {
    mux::DashManifest m;
    const AVRational video_tb = av_inv_q(src.frame_rate);
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        const Rung& r = *rungs[i];
        const std::vector<mux::CmafSegment>& segments = r.writer()->cmaf()->segments();
        const Dav1dSequenceHeader contract = r.finished_contract();
        mux::DashVideoRepresentation v;
        v.id = r.spec().name;
        v.folder = r.spec().name;
        v.bandwidth = peak_of(segments);
        v.codecs = mux::av1_codecs_string(contract);
        v.width = r.spec().width;
        v.height = r.spec().height;
        v.frame_rate_num = src.frame_rate.num;
        v.frame_rate_den = src.frame_rate.den;
        v.timeline = timeline_of(segments, video_tb);
        m.colour_primaries = contract.pri;
        m.transfer_characteristics = contract.trc;
        m.matrix_coefficients = contract.mtrx;
        m.duration_seconds = std::max(m.duration_seconds, seconds_of(segments));
        for (const auto& s : segments) m.max_segment_seconds = std::max(m.max_segment_seconds, s.duration);
        m.video.push_back(std::move(v));
    }
    for (std::size_t i = 0; audio && i < audio_renditions.size(); ++i) {
        const AudioRenditionSpec& spec = audio->spec(i);
        const AudioTrack& track = audio->track(i);
        const AudioRenditionWriter& rendition = *audio_renditions[i];
        mux::DashAudioRepresentation a;
        a.id = "audio-" + spec.id;
        a.folder = uri_in_ladder(outdir.path(), rendition.dir());
        a.language = rfc5646_language(spec.language);
        a.label = spec.name;
        a.is_default = spec.is_default;
        a.bandwidth = peak_of(rendition.segments());
        a.sample_rate = track.codecpar()->sample_rate;
        a.channels = track.channels();
        a.timeline = timeline_of(rendition.segments(), track.time_base());
        // An audio segment may end up to an AAC frame after its video
        // segment (engine/media/audio_segment_plan.hpp).
        m.duration_seconds = std::max(m.duration_seconds, seconds_of(rendition.segments()));
        for (const auto& s : rendition.segments()) m.max_segment_seconds = std::max(m.max_segment_seconds, s.duration);
        m.audio.push_back(std::move(a));
    }
    for (const SubtitleRenditionWriter* w : subtitle_renditions) {
        const SubtitleRenditionSpec& spec = subtitles->spec(w->track());
        const auto file = w->dir() / SubtitleRenditionWriter::whole_track_name;
        mux::DashTextRepresentation t;
        t.id = "subtitles-" + spec.id;
        t.file = uri_in_ladder(outdir.path(), file);
        t.language = rfc5646_language(spec.language);
        t.label = spec.name;
        t.is_forced = spec.is_forced;
        if (w->duration_seconds() > 0)
            t.bandwidth = static_cast<std::uint64_t>(8.0 * static_cast<double>(std::filesystem::file_size(file)) /
                                                     w->duration_seconds());
        m.text.push_back(std::move(t));
    }
    outdir.write_atomically(kDashManifest, mux::render_dash_manifest(m));
}

}  // namespace ladder::engine
