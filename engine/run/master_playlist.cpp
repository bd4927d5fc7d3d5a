#include "engine/run/master_playlist.hpp"

#include "engine/media/language_tag.hpp"
#include "engine/output/output_paths.hpp"
#include "mux/av1_codecs_string.hpp"
#include "mux/hls_master_builder.hpp"
#include "mux/hls_track_playlists.hpp"

namespace ladder::engine {

void write_master_playlist(const mux::OutputFolder& outdir, const SourceInfo& src,
                           const Rungs& rungs,
                         const std::vector<AudioRenditionWriter*>& audio_renditions,
                           const AudioTracks* audio,
                           const std::vector<const SubtitleRenditionWriter*>& subtitle_renditions,
                           const SubtitleTracks* subtitles) {
    std::vector<mux::VideoRenditionSummary> video;
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        const Rung& r = *rungs[i];
        const std::vector<mux::CmafSegment>& segments = r.writer()->cmaf()->segments();
        const Dav1dSequenceHeader contract = r.finished_contract();
        mux::VideoRenditionSummary v;
        v.uri = r.spec().name + "/index.m3u8";
        v.iframe_uri = r.spec().name + "/iframes.m3u8";
        v.width = r.spec().width;
        v.height = r.spec().height;
        v.frame_rate = av_q2d(src.frame_rate);
        v.codecs = mux::av1_codecs_string(contract);
        v.video_range = mux::video_range_for_transfer(contract.trc);
        v.segments = mux::segment_sizes(segments);
        v.iframes = mux::iframe_sizes(segments);
        video.push_back(std::move(v));
    }
    std::vector<mux::AudioRenditionSummary> audio_summary;
    for (std::size_t i = 0; audio && i < audio_renditions.size(); ++i) {
        const AudioRenditionSpec& spec = audio->spec(i);
        mux::AudioRenditionSummary a;
        a.track = spec.ordinal;
        a.language = rfc5646_language(spec.language);
        a.name = spec.name;
        a.is_default = spec.is_default;
        a.uri = uri_in_ladder(outdir.path(), audio_renditions[i]->dir() / "index.m3u8");
        a.channels = audio->track(i).channels();
        a.segments = mux::segment_sizes(audio_renditions[i]->segments());
        audio_summary.push_back(std::move(a));
    }
    std::vector<mux::SubtitleRenditionSummary> subtitle_summary;
    for (const SubtitleRenditionWriter* w : subtitle_renditions) {
        const SubtitleRenditionSpec& spec = subtitles->spec(w->track());
        subtitle_summary.push_back({spec.name, rfc5646_language(spec.language),
                                    uri_in_ladder(outdir.path(), w->dir() / "index.m3u8"), spec.is_default,
                                    spec.is_forced});
    }
    outdir.write_atomically(
        kMasterPlaylist,
        mux::render_master_playlist(mux::build_master_playlist(video, audio_summary, subtitle_summary)));
}

}  // namespace ladder::engine
