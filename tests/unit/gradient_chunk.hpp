#pragma once
// Test helper: chunk `index` of a rung of `frames`-frame chunks, frames
// [index x frames, (index + 1) x frames) of a moving 8-bit 4:2:0 gradient at
// size x size (64 is SVT-AV1's smallest picture).
#include <cstdint>

#include "av/av_error.hpp"
#include "av/handles.hpp"
#include "engine/base/chunk.hpp"

namespace ladder::test {

inline engine::RawChunk gradient_chunk(int index, int frames, int size = 64) {
    engine::RawChunk c;
    c.rung = 0;
    c.index = index;
    c.first_frame = static_cast<std::int64_t>(index) * frames;
    for (int i = 0; i < frames; ++i) {
        av::FramePtr f = av::make_frame();
        f->format = AV_PIX_FMT_YUV420P;
        f->width = size;
        f->height = size;
        av::check(av_frame_get_buffer(f.get(), 0), "allocating a frame");
        const int t = static_cast<int>(c.first_frame) + i;
        for (int p = 0; p < 3; ++p) {
            const int n = p ? size / 2 : size;
            for (int y = 0; y < n; ++y)
                for (int x = 0; x < n; ++x)
                    f->data[p][y * f->linesize[p] + x] = static_cast<std::uint8_t>((x * 3 + y + t * 5) & 0xff);
        }
        c.frames.push_back(std::move(f));
    }
    return c;
}

}  // namespace ladder::test
