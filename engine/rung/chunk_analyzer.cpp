#include "engine/rung/chunk_analyzer.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
}

#include <algorithm>

#include <fmt/format.h>

#include "engine/base/errors.hpp"
#include "engine/base/thread_name.hpp"

namespace ladder::engine {

namespace {
constexpr const char* kEncoder = "libsvtav1";
// 180 lines: at 480x270 the analysis encode's bits per chunk followed the
// rungs' own constant-quality encodes (docs/benchmarks.md); smaller keeps
// its cost far under the decoder's.
constexpr int kShortSide = 180;
// Chunks waiting for the analysis encode: enough that a burst of fast
// decoding does not stall the pump, few enough to be small (a 2-s chunk at
// 320x180 is about 4 MB).
constexpr std::size_t kQueuedChunks = 16;

// Rounded down: never larger than the source.
int even_at_least_2(double v) { return std::max(2, 2 * static_cast<int>(v / 2)); }
}  // namespace

std::pair<int, int> ChunkAnalyzer::analysis_size(int width, int height) {
    const int short_side = std::min(width, height);
    if (short_side <= kShortSide) return {even_at_least_2(width), even_at_least_2(height)};
    const double scale = static_cast<double>(kShortSide) / short_side;
    return {even_at_least_2(width * scale), even_at_least_2(height * scale)};
}

bool ChunkAnalyzer::covers(const RungSpec& rung) const {
    return std::min(rung.width, rung.height) <= kScaleReach * std::min(settings_.width, settings_.height);
}

bool ChunkAnalyzer::available() { return avcodec_find_encoder_by_name(kEncoder) != nullptr; }

ChunkAnalyzer::ChunkAnalyzer(const SourceInfo& source, int chunk_frames, int expected_chunks, int rung_index,
                             EncoderFactory encoders, int slot_id, ProgressSink& progress, int lanes)
    : encoders_(std::move(encoders)),
      slot_id_(slot_id),
      progress_(progress),
      complexity_(expected_chunks),
      chunks_(kQueuedChunks),
      joiner_("analysis", chunk_frames, lanes),
      rung_index_(rung_index),
      pix_fmt_(source.pix_fmt),
      chunk_frames_(chunk_frames) {
    rung_.name = "analysis";
    std::tie(rung_.width, rung_.height) = analysis_size(source.display_width, source.display_height);
    settings_.width = rung_.width;
    settings_.height = rung_.height;
    settings_.pix_fmt = source.pix_fmt;
    settings_.frame_rate = source.frame_rate;
    settings_.preset = kPreset;
    settings_.crf = kCrf;
}

void ChunkAnalyzer::connect(FrameChannel& frames, std::function<bool()> ends_source) {
    auto scaler = std::make_unique<RungScaler>(rung_index_, rung_, pix_fmt_, chunk_frames_, frames, chunks_, joiner_);
    scaler->ends_source(std::move(ends_source));
    scalers_.push_back(std::move(scaler));
    if (stages_) {
        start_scaler(scalers_.size() - 1);
        start_encoder(scalers_.size() - 1);
    }
}

void ChunkAnalyzer::start_scaler(std::size_t i) {
    // Its queue is shared by the lanes' scalers: the last one to end closes
    // it; after a failure, any.
    stages_->start(
        fmt::format("analysis scaler {}", i), [scaler = scalers_[i].get()](std::stop_token t) { scaler->run(t); },
        [this] {
            if (stages_->stopping()) chunks_.close();
        });
}

// An encode per lane: one alone (about 600 frames/s of the analysis copy on
// a core) held back the decode lanes of a 4-GPU run through its queue,
// which the lanes must not outrun.
void ChunkAnalyzer::start_encoder(std::size_t i) {
    stages_->start(fmt::format("analysis {}", i), [this, i](std::stop_token t) { measure(t, static_cast<int>(i)); });
}

void ChunkAnalyzer::start(StageThreads& stages) {
    stages_ = &stages;
    for (std::size_t i = 0; i < scalers_.size(); ++i) {
        start_scaler(i);
        start_encoder(i);
    }
}

void ChunkAnalyzer::measure_while(std::function<bool()> wanted) { wanted_ = std::move(wanted); }

bool ChunkAnalyzer::wanted() const { return measuring_.load() && (!wanted_ || wanted_()); }

void ChunkAnalyzer::measure(std::stop_token stop, int encoder) {
    name_this_thread("analysis");
    gpu::EncoderSlot slot;
    slot.id = slot_id_ + encoder;  // an encoder process's slot has one user
    slot.set_encoder(kEncoder);
    slot.threads = 1;
    slot.label = "analysis";
    while (auto chunk = chunks_.pop(stop)) {
        if (chunk->frames.empty() || !wanted()) continue;
        try {
            // A fresh encoder per chunk: SVT-AV1 returns a session's last
            // frames only at its end, and a chunk's bits are wanted as soon
            // as it is decoded.
            const EncodedChunk done = encoders_(slot, settings_)->encode(*chunk, stop);
            complexity_.record(chunk->index,
                               8.0 * static_cast<double>(done.bytes) / static_cast<double>(chunk->frames.size()));
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            if (measuring_.exchange(false))
                progress_.note(NoteLevel::warning,
                               fmt::format("complexity analysis stopped at chunk {} ({}); sessions of the chunks it "
                                           "did not measure ask for their rung's plain rate",
                                           chunk->index, e.what()));
        }
    }
}

}  // namespace ladder::engine
