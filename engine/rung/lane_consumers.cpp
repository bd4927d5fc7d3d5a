#include "engine/rung/lane_consumers.hpp"

#include <fmt/format.h>

namespace ladder::engine {

LaneConsumers::LaneConsumers(LaneConsumerSetup setup) : setup_(setup) {
    const int lanes = setup_.lanes->size();
    for (const RungRuntime& rt : *setup_.rungs)
        joiners_.push_back(std::make_unique<ChunkJoiner>(rt.rung.name, setup_.chunk_frames, lanes));
    scalers_.resize(setup_.rungs->size());
    for (int lane = 0; lane < lanes; ++lane) connect(lane);
}

void LaneConsumers::add_lane() {
    for (auto& joiner : joiners_) joiner->add_lane();
    if (setup_.analyzer) setup_.analyzer->add_lane();
}

void LaneConsumers::connect(int lane) {
    std::vector<RungRuntime>& rungs = *setup_.rungs;
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        RungRuntime& rt = rungs[i];
        auto on_end = [&rt, known = setup_.video_length_known](int chunks, std::int64_t frames) {
            if (rt.finalizer) rt.finalizer->set_total(chunks, frames);
            if (known) known(frames);
        };
        auto from_journal = [journaled = setup_.journaled](RawChunk& raw) { return journaled->take(raw); };
        auto scaler = std::make_unique<RungScaler>(
            static_cast<int>(i), rt.rung, setup_.pix_fmt, setup_.chunk_frames,
            setup_.lanes->channel(lane, static_cast<int>(i)), setup_.dispatcher->queue(static_cast<int>(i)),
            *joiners_[i], on_end, setup_.memory, from_journal);
        scaler->keep_on_gpu(setup_.keep_on_gpu, setup_.lanes->gpu_of(lane), setup_.gpu_memory);
        scaler->ends_source(setup_.lanes->ends_source(lane));
        scalers_[i].push_back(std::move(scaler));
        if (stages_) start_scaler(i, scalers_[i].size() - 1);
    }
    if (setup_.analyzer)
        setup_.analyzer->connect(setup_.lanes->channel(lane, static_cast<int>(rungs.size())),
                                 setup_.lanes->ends_source(lane));
}

void LaneConsumers::start_scaler(std::size_t rung, std::size_t lane) {
    ChunkInlet* queue = &setup_.dispatcher->queue(static_cast<int>(rung));
    const std::string& name = (*setup_.rungs)[rung].rung.name;
    // The queue is the rung's, shared by the lanes' scalers: the last one
    // to end closes it; after a failure, any.
    stages_->start(lane == 0 ? fmt::format("rung {} scaler", name) : fmt::format("rung {} scaler {}", name, lane),
                   [scaler = scalers_[rung][lane].get()](std::stop_token t) { scaler->run(t); },
                   [queue, stages = stages_] {
                       if (stages->stopping()) queue->close();
                   });
}

void LaneConsumers::start(StageThreads& stages) {
    stages_ = &stages;
    for (std::size_t r = 0; r < scalers_.size(); ++r)
        for (std::size_t lane = 0; lane < scalers_[r].size(); ++lane) start_scaler(r, lane);
}

}  // namespace ladder::engine
