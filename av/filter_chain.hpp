#pragma once
// One-input, one-output libavfilter graph (buffer/abuffer -> chain -> sink).
// Used to normalize decoded video (fps, pixel format) and audio (resample,
// fixed frame size) without hand-written conversion code.
#include <cstdint>
#include <string>
#include <vector>

#include "av/handles.hpp"

namespace ladder::av {

class FilterChain {
public:
    // source_args: arguments of the "buffer"/"abuffer" source filter.
    // chain: the filter description between source and sink (e.g.
    // "fps=25,format=yuv420p"). audio selects abuffer/abuffersink.
    // hw_frames: for video frames in GPU memory (pix_fmt=cuda), the frames
    // context they come from; the chain then starts on the GPU (scale_cuda,
    // hwdownload).
    FilterChain(bool audio, const std::string& source_args, const std::string& chain,
                const AVBufferRef* hw_frames = nullptr);

    // Sink frame size for audio encoders that need fixed frames (AAC: 1024).
    void set_audio_frame_size(int samples);

    // Feed one frame (nullptr = end of stream) and collect every frame that is
    // ready at the sink.
    std::vector<FramePtr> push(AVFrame* frame);

    // Ends the input at eof_pts (in the source time base) and collects what
    // is left. Giving the real end time matters: the fps filter would drop
    // the last frame if the stream ended at that frame's own timestamp.
    std::vector<FramePtr> close(std::int64_t eof_pts);

    AVRational output_time_base() const;

private:
    std::vector<FramePtr> drain();

    FilterGraphPtr graph_;
    AVFilterContext* src_ = nullptr;  // owned by graph_
    AVFilterContext* sink_ = nullptr;  // owned by graph_
};

}  // namespace ladder::av
