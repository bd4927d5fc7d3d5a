#pragma once
// Sources whose picture size (or pixel format) changes mid-stream: a TS of
// a 320x240 programme followed by a 640x360 one, a capture that switched
// inputs. Every stage after the decoder works at one size, so each frame
// that differs from the first one is fitted into the first one's picture:
// scaled to keep its display aspect ratio and centred on black (letterbox or
// pillarbox), in the first one's pixel format and sample aspect ratio.
#include <optional>
#include <string>

#include "av/filter_chain.hpp"
#include "av/handles.hpp"

namespace ladder::engine {

class PictureFit {
public:
    struct Fitted {
        av::FramePtr frame;               // null: the frame has the first one's size and format already
        std::optional<std::string> note;  // set when a new size begins: what happens to it
    };

    // time_base: of the frames' timestamps (kept as they are).
    Fitted fit(AVFrame* frame, AVRational time_base);

private:
    void start_chain(const AVFrame* frame, AVRational time_base);

    int width_ = 0;   // the first frame's
    int height_ = 0;
    int format_ = -1;
    AVRational sar_{1, 1};
    // The chain for the size now coming in, and that size.
    std::unique_ptr<av::FilterChain> chain_;
    int chain_width_ = 0;
    int chain_height_ = 0;
    int chain_format_ = -1;
};

}  // namespace ladder::engine
