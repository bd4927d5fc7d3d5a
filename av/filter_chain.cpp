#include "av/filter_chain.hpp"

#include <fmt/format.h>

#include <new>

#include "av/av_error.hpp"
#include "av/bitexact_scaling.hpp"

extern "C" {
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
}

namespace ladder::av {

FilterChain::FilterChain(bool audio, const std::string& source_args, const std::string& chain,
                         const AVBufferRef* hw_frames)
    : graph_(avfilter_graph_alloc()) {
    if (!graph_) throw std::bad_alloc();
    // Filters run on the caller's thread: ladder parallelizes across rungs.
    graph_->nb_threads = 1;
    // The scale filters the graph inserts to convert formats round as plain C
    // on every CPU, as ladder's own scaling does (av/bitexact_scaling.hpp).
    graph_->scale_sws_opts = av_strdup(fmt::format("flags={}", kBitExactBicubicFlags).c_str());
    if (!graph_->scale_sws_opts) throw std::bad_alloc();
    const AVFilter* src = avfilter_get_by_name(audio ? "abuffer" : "buffer");
    const AVFilter* sink = avfilter_get_by_name(audio ? "abuffersink" : "buffersink");
    src_ = avfilter_graph_alloc_filter(graph_.get(), src, "in");
    if (!src_) throw std::bad_alloc();
    if (hw_frames) {
        // The frames context must be known before the source is initialized.
        AVBufferSrcParameters* par = av_buffersrc_parameters_alloc();
        if (!par) throw std::bad_alloc();
        par->format = AV_PIX_FMT_NONE;
        par->hw_frames_ctx = const_cast<AVBufferRef*>(hw_frames);  // borrowed: the call takes its own reference
        const int ret = av_buffersrc_parameters_set(src_, par);
        av_free(par);
        check(ret, "giving the filter source its hardware frames context");
    }
    check(avfilter_init_str(src_, source_args.c_str()), fmt::format("creating filter source ({})", source_args));
    check(avfilter_graph_create_filter(&sink_, sink, "out", nullptr, nullptr, graph_.get()),
          "creating filter sink");

    FilterInOutPtr outputs(avfilter_inout_alloc());
    FilterInOutPtr inputs(avfilter_inout_alloc());
    if (!outputs || !inputs) throw std::bad_alloc();
    outputs->name = av_strdup("in");
    outputs->filter_ctx = src_;
    inputs->name = av_strdup("out");
    inputs->filter_ctx = sink_;
    AVFilterInOut* in_raw = inputs.release();
    AVFilterInOut* out_raw = outputs.release();
    int ret = avfilter_graph_parse_ptr(graph_.get(), chain.c_str(), &in_raw, &out_raw, nullptr);
    avfilter_inout_free(&in_raw);
    avfilter_inout_free(&out_raw);
    check(ret, fmt::format("parsing filter chain '{}'", chain));
    check(avfilter_graph_config(graph_.get(), nullptr), fmt::format("configuring filter chain '{}'", chain));
}

void FilterChain::set_audio_frame_size(int samples) {
    av_buffersink_set_frame_size(sink_, static_cast<unsigned>(samples));
}

std::vector<FramePtr> FilterChain::push(AVFrame* frame) {
    check(av_buffersrc_add_frame_flags(src_, frame, AV_BUFFERSRC_FLAG_KEEP_REF), "feeding the filter chain");
    return drain();
}

std::vector<FramePtr> FilterChain::close(std::int64_t eof_pts) {
    check(av_buffersrc_close(src_, eof_pts, AV_BUFFERSRC_FLAG_PUSH), "ending the filter chain");
    return drain();
}

std::vector<FramePtr> FilterChain::drain() {
    std::vector<FramePtr> out;
    for (;;) {
        FramePtr f = make_frame();
        int ret = av_buffersink_get_frame(sink_, f.get());
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) break;
        check(ret, "reading from the filter chain");
        out.push_back(std::move(f));
    }
    return out;
}

AVRational FilterChain::output_time_base() const { return av_buffersink_get_time_base(sink_); }

}  // namespace ladder::av
