#include "engine/rung/lane_consumers.hpp"

#include <fmt/format.h>

namespace ladder::engine {

LaneConsumers::LaneConsumers(LaneConsumerSetup setup) : setup_(std::move(setup)) {
    for (int lane = 0; lane < setup_.lanes->size(); ++lane) {
        for (auto& rung : *setup_.rungs) rung->joiner().add_lane();
        connect(lane);
    }
}

void LaneConsumers::add_lane() {
    for (auto& rung : *setup_.rungs) rung->joiner().add_lane();
    if (setup_.analyzer) setup_.analyzer->add_lane();
}

void LaneConsumers::connect(int lane) {
    const Rungs& rungs = *setup_.rungs;
    for (const auto& rung_ptr : rungs) {
        Rung& rung = *rung_ptr;
        const int r = rung.index();
        auto from_journal = [&rung](RawChunk& raw) { return rung.take_from_journal(raw); };
        RungScaler& scaler = rung.add_scaler(std::make_unique<RungScaler>(
            r, rung.spec(), setup_.pix_fmt, setup_.chunk_frames, setup_.lanes->channel(lane, r),
            setup_.dispatcher->queue(r), rung.joiner(), setup_.memory, from_journal));
        scaler.keep_on_gpu(setup_.keep_on_gpu, setup_.lanes->gpu_of(lane), setup_.gpu_memory);
        scaler.ends_source(setup_.lanes->ends_source(lane));
        if (stages_) start_scaler(rung, rung.scalers() - 1);
    }
    if (setup_.analyzer)
        setup_.analyzer->connect(setup_.lanes->channel(lane, static_cast<int>(rungs.size())),
                                 setup_.lanes->ends_source(lane));
}

void LaneConsumers::start_scaler(Rung& rung, std::size_t lane) {
    ChunkInlet* queue = &setup_.dispatcher->queue(rung.index());
    // The queue is the rung's, shared by the lanes' scalers: the last one
    // to end closes it; after a failure, any.
    stages_->start(lane == 0 ? fmt::format("rung {} scaler", rung.name())
                             : fmt::format("rung {} scaler {}", rung.name(), lane),
                   [scaler = &rung.scaler(lane)](std::stop_token t) { scaler->run(t); },
                   [queue, stages = stages_] {
                       if (stages->stopping()) queue->close();
                   });
}

void LaneConsumers::start(StageThreads& stages) {
    stages_ = &stages;
    for (auto& rung : *setup_.rungs)
        for (std::size_t lane = 0; lane < rung->scalers(); ++lane) start_scaler(*rung, lane);
}

}  // namespace ladder::engine
