#include "av/frame_metric.hpp"

#include <fmt/format.h>

#include <new>

#include "av/av_error.hpp"

extern "C" {
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/pixdesc.h>
}

namespace ladder::av {

namespace {

AVFilterContext* make_source(AVFilterGraph* graph, const char* name, int width, int height, AVPixelFormat format) {
    AVFilterContext* ctx = nullptr;
    // Time base 1/1: pairs are matched by their pts, 0, 1, 2, ...
    const std::string args = fmt::format("video_size={}x{}:pix_fmt={}:time_base=1/1:pixel_aspect=1/1", width, height,
                                         static_cast<int>(format));
    check(avfilter_graph_create_filter(&ctx, avfilter_get_by_name("buffer"), name, args.c_str(), nullptr, graph),
          fmt::format("creating the metric's {} source", name));
    return ctx;
}

void feed(AVFilterContext* src, const AVFrame* frame, std::int64_t pts) {
    FramePtr copy = ref_frame(frame);
    copy->pts = pts;
    check(av_buffersrc_add_frame_flags(src, copy.get(), 0), "feeding the metric");
}

}  // namespace

bool has_filter(const char* name) { return avfilter_get_by_name(name) != nullptr; }

FrameMetric::FrameMetric(const std::string& filter, int width, int height, AVPixelFormat format)
    : graph_(avfilter_graph_alloc()) {
    if (!graph_) throw std::bad_alloc();
    graph_->nb_threads = 1;  // on the encoder worker's thread
    if (!has_filter(filter.c_str()))
        throw AvError(AVERROR_FILTER_NOT_FOUND, fmt::format("this FFmpeg build has no {} filter", filter));
    distorted_ = make_source(graph_.get(), "distorted", width, height, format);
    reference_ = make_source(graph_.get(), "reference", width, height, format);
    check(avfilter_graph_create_filter(&sink_, avfilter_get_by_name("buffersink"), "out", nullptr, nullptr,
                                       graph_.get()),
          "creating the metric's sink");
    FilterInOutPtr inputs(avfilter_inout_alloc());
    FilterInOutPtr second(avfilter_inout_alloc());
    FilterInOutPtr outputs(avfilter_inout_alloc());
    if (!inputs || !second || !outputs) throw std::bad_alloc();
    // The graph's open ends: [d] and [r] come from the sources, [o] goes to the sink.
    second->name = av_strdup("r");
    second->filter_ctx = reference_;
    outputs->name = av_strdup("d");
    outputs->filter_ctx = distorted_;
    outputs->next = second.release();
    inputs->name = av_strdup("o");
    inputs->filter_ctx = sink_;
    AVFilterInOut* in = inputs.release();
    AVFilterInOut* out = outputs.release();
    const int ret = avfilter_graph_parse_ptr(graph_.get(), fmt::format("[d][r]{}[o]", filter).c_str(), &in, &out, nullptr);
    FilterInOutPtr left_in(in), left_out(out);
    check(ret, fmt::format("building the {} graph", filter));
    check(avfilter_graph_config(graph_.get(), nullptr), fmt::format("configuring the {} graph", filter));
}

std::vector<std::map<std::string, std::string>> FrameMetric::compare(const std::vector<const AVFrame*>& distorted,
                                                                     const std::vector<const AVFrame*>& reference) {
    if (distorted.size() != reference.size())
        throw AvError(AVERROR(EINVAL), fmt::format("{} frames to compare with {}", distorted.size(), reference.size()));
    for (std::size_t i = 0; i < distorted.size(); ++i) {
        feed(distorted_, distorted[i], static_cast<std::int64_t>(i));
        feed(reference_, reference[i], static_cast<std::int64_t>(i));
    }
    const auto end = static_cast<std::int64_t>(distorted.size());
    check(av_buffersrc_close(distorted_, end, AV_BUFFERSRC_FLAG_PUSH), "ending the metric's input");
    check(av_buffersrc_close(reference_, end, AV_BUFFERSRC_FLAG_PUSH), "ending the metric's reference");
    std::vector<std::map<std::string, std::string>> out;
    FramePtr frame = make_frame();
    for (;;) {
        const int ret = av_buffersink_get_frame(sink_, frame.get());
        if (ret == AVERROR_EOF || ret == AVERROR(EAGAIN)) break;
        check(ret, "reading the metric");
        std::map<std::string, std::string> values;
        const AVDictionaryEntry* e = nullptr;
        while ((e = av_dict_get(frame->metadata, "", e, AV_DICT_IGNORE_SUFFIX))) values[e->key] = e->value;
        out.push_back(std::move(values));
        av_frame_unref(frame.get());
    }
    return out;
}

}  // namespace ladder::av
