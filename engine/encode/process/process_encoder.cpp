#include "engine/encode/process/process_encoder.hpp"

#include <fmt/format.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <vector>

#include "engine/encode/process/encoder_messages.hpp"
#include "engine/base/errors.hpp"
#include "engine/encode/backend/session_driver.hpp"

namespace ladder::engine {

namespace {

using ipc::MessageType;

// Frames in flight per encoder process: enough that ladder copies the next
// frame while the encoder takes the last one (SVT-AV1 and libaom copy a
// frame into their own buffers when it is sent).
constexpr int kRingSlots = 3;

// Wakes a wait on the socket when the run is stopped.
class StopWake {
public:
    explicit StopWake(std::stop_token stop)
        : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), callback_(std::move(stop), [this] {
              const std::uint64_t one = 1;
              [[maybe_unused]] const ssize_t n = ::write(fd_.get(), &one, sizeof one);
          }) {}
    int fd() const { return fd_.get(); }

private:
    av::UniqueFd fd_;
    std::stop_callback<std::function<void()>> callback_;
};

// The SessionEncoder of a CPU slot's encoder process: a session's chunk
// messages and frames go out, its stream parameters and packets come back.
class ProcessEncoder final : public SessionEncoder {
public:
    ProcessEncoder(EncoderProcesses& processes, gpu::EncoderSlot slot, EncoderSettings settings)
        : processes_(processes), slot_(std::move(slot)), settings_(settings) {}

    // A session left open (its chunks were refused, or its worker gave up)
    // leaves the process in the middle of a stream: it goes, and the slot's
    // next session starts a new one.
    ~ProcessEncoder() override {
        if (!state_ || !open_ || !state_->process) return;
        state_->process->kill();
        state_->process.reset();
    }
    ProcessEncoder(const ProcessEncoder&) = delete;
    ProcessEncoder& operator=(const ProcessEncoder&) = delete;

    void open(const ChunkHeader& chunk, const AVFrame& first) override {
        guarded([&] {
            if (first.hw_frames_ctx)
                throw RunError(fmt::format("{}: frames in GPU memory cannot go to an encoder process", slot_.label));
            state_ = &start();
            EncoderProcesses::Slot& s = *state_;
            const std::size_t bytes =
                slot_bytes_for({static_cast<AVPixelFormat>(first.format), first.width, first.height});
            if (!s.ring || s.ring->slot_bytes() < bytes)
                s.ring = std::make_unique<SharedFrameRing>(kRingSlots, bytes);
            request_ = ++s.requests;
            stall_ = stall_limit(first.width, first.height);
            free_slots_.clear();
            for (int i = kRingSlots - 1; i >= 0; --i) free_slots_.push_back(i);
            const nlohmann::json req = {{"request", request_},
                                        {"slot", slot_to_json(slot_)},
                                        {"settings", settings_to_json(settings_)},
                                        {"chunk", header_json(chunk)},
                                        {"ring", {{"slots", s.ring->slots()}, {"slot_bytes", s.ring->slot_bytes()}}}};
            send(s, MessageType::chunk, req.dump(), s.ring->fd());
            open_ = true;
            current_chunk_ = chunk.index;
        });
    }

    // The process's encoder checks that the chunk follows the last one.
    void next_chunk(const ChunkHeader& chunk, bool /*anywhere: never, CPU encoders force no key frames*/) override {
        guarded([&] {
            send(*state_, MessageType::chunk,
                 nlohmann::json{{"request", request_}, {"chunk", header_json(chunk)}}.dump());
            current_chunk_ = chunk.index;
        });
    }

    void send(av::FramePtr frame, bool chunk_start, const PacketSink& sink, std::stop_token stop) override {
        guarded([&] {
            if (chunk_start || !wake_) wake_.emplace(stop);  // one per chunk
            EncoderProcesses::Slot& s = *state_;
            while (free_slots_.empty()) pump(wake_->fd(), false, sink);
            const int ring_slot = free_slots_.back();
            free_slots_.pop_back();
            s.ring->write(ring_slot, *frame);
            send(s, MessageType::frame,
                 nlohmann::json{{"request", request_}, {"slot", ring_slot}, {"properties", frame_properties(*frame)}}
                     .dump());
        });
    }

    // Packets come back while the frames go out (send) and after the flush.
    void drain(const PacketSink&, std::stop_token) override {}

    void flush(const PacketSink& sink, std::stop_token stop) override {
        guarded([&] {
            StopWake wake(stop);
            send(*state_, MessageType::flush, nlohmann::json{{"request", request_}}.dump());
            while (!pump(wake.fd(), true, sink)) {
            }
            if (!stream_) throw RunError(fmt::format("{}: the encoder returned no packets", slot_.label));
        });
    }

    // The process ended its session and waits for the next.
    void close() override { forget_session(); }

    // The process is in the middle of a stream that nobody finishes: it goes.
    void abandon() override {
        if (open_ && state_ && state_->process) {
            state_->process->kill();
            state_->process.reset();
        }
        forget_session();
    }

    bool is_open() const override { return open_; }
    const AVCodecParameters* stream() const override { return stream_.get(); }

private:
    // What the encoder in the process reported (it stays usable).
    class EncoderError : public RunError {
    public:
        using RunError::RunError;
    };

    static nlohmann::json header_json(const ChunkHeader& chunk) {
        return {{"rung", chunk.rung}, {"index", chunk.index}, {"first_frame", chunk.first_frame},
                {"frames", chunk.frames}};
    }

    template <typename Step>
    void guarded(Step&& step) {
        try {
            step();
        } catch (const EncoderProcessFailure&) {
            forget_session();
            throw;  // the process is gone already
        } catch (const EncoderError&) {
            forget_session();
            throw;  // the process said why and waits for the next session
        } catch (...) {
            // Anything else left the process in the middle of a session.
            if (state_ && state_->process) state_->process->kill();
            if (state_) state_->process.reset();
            forget_session();
            throw;
        }
    }

    void forget_session() {
        open_ = false;
        stream_.reset();
        wake_.reset();
    }

    // Takes one message of the session; true once the encoder is done
    // (after a flush).
    bool pump(int wake_fd, bool flushing, const PacketSink& sink) {
        ipc::Message m = receive(*state_, request_, stall_, wake_fd, current_chunk_);
        const nlohmann::json body = nlohmann::json::parse(m.json);
        switch (m.type) {
            case MessageType::released:
                free_slots_.push_back(body.at("slot").get<int>());
                return false;
            case MessageType::stream:
                stream_ = codecpar_from_json(body.at("codecpar"), m.bytes);
                return false;
            case MessageType::packet: {
                av::PacketPtr pkt = av::make_packet();
                if (av_new_packet(pkt.get(), static_cast<int>(m.bytes.size())) < 0) throw std::bad_alloc();
                std::copy(m.bytes.begin(), m.bytes.end(), pkt->data);
                pkt->pts = pkt->dts = body.at("pts").get<std::int64_t>();
                pkt->flags = body.at("flags").get<int>();
                sink(std::move(pkt));
                return false;
            }
            case MessageType::done:
                return flushing;
            case MessageType::error:
                throw EncoderError(body.at("message").get<std::string>());
            default:
                return false;
        }
    }

public:
    void probe() override {
        EncoderProcesses::Slot& s = start();
        const std::uint64_t request = ++s.requests;
        send(s, MessageType::probe,
             nlohmann::json{{"request", request}, {"slot", slot_to_json(slot_)}, {"settings", settings_to_json(settings_)}}
                 .dump());
        ipc::Message m = receive(s, request, processes_.stall_timeout(), -1, -1);
        if (m.type == MessageType::error)
            throw RunError(nlohmann::json::parse(m.json).at("message").get<std::string>());
    }

private:
    EncoderProcesses::Slot& start() {
        EncoderProcesses::Slot& s = processes_.slot(slot_.id);
        if (!s.process) {
            s.process = std::make_unique<EncoderProcess>();
            ++s.started;
        }
        return s;
    }

    std::chrono::milliseconds stall_limit(int width, int height) const {
        const double scale = std::max(1.0, static_cast<double>(width) * height / (1920.0 * 1080.0));
        return std::chrono::milliseconds(
            static_cast<long long>(static_cast<double>(processes_.stall_timeout().count()) * scale));
    }

    void send(EncoderProcesses::Slot& s, MessageType type, const std::string& json, int fd = -1) {
        try {
            s.process->socket().send(type, json, {}, fd);
        } catch (const ipc::PeerGone&) {
            lost(s, "crash", "");
        }
    }

    // The next message of this request; a process that ended, stalled or
    // was stopped is dealt with here.
    ipc::Message receive(EncoderProcesses::Slot& s, std::uint64_t request, std::chrono::milliseconds stall,
                         int wake_fd, int chunk) {
        for (;;) {
            switch (s.process->socket().wait(stall, wake_fd)) {
                case ipc::Socket::Wait::woken:
                    s.process->kill();
                    s.process.reset();
                    throw Cancelled();
                case ipc::Socket::Wait::timeout:
                    s.process->kill();
                    lost(s, "hang",
                         fmt::format("no frame taken and no packet for {:.0f} s in chunk {}: killed as hung",
                                     std::chrono::duration<double>(stall).count(), chunk));
                    break;
                case ipc::Socket::Wait::readable:
                    break;
            }
            try {
                ipc::Message m = s.process->socket().receive();
                const auto id = nlohmann::json::parse(m.json).value("request", std::uint64_t{0});
                if (id == request) return m;
            } catch (const ipc::PeerGone&) {
                lost(s, "crash", "");
            } catch (const nlohmann::json::exception& e) {
                s.process->kill();
                lost(s, "crash", fmt::format("it sent a malformed message ({})", e.what()));
            }
        }
    }

    [[noreturn]] void lost(EncoderProcesses::Slot& s, const std::string& cause, const std::string& why) {
        const pid_t pid = s.process->pid();
        const std::string ended = s.process->reap();
        s.process.reset();  // the next chunk on this slot starts a new one
        throw EncoderProcessFailure(
            cause, fmt::format("{} encoder process {} {}{}", slot_.encoder, pid, ended, why.empty() ? "" : ": " + why));
    }

    EncoderProcesses& processes_;
    gpu::EncoderSlot slot_;
    EncoderSettings settings_;
    // The open session: the slot's process, its request, what came back.
    EncoderProcesses::Slot* state_ = nullptr;
    bool open_ = false;
    std::uint64_t request_ = 0;
    std::chrono::milliseconds stall_{0};
    std::vector<int> free_slots_;  // ring slots the encoder does not read
    int current_chunk_ = -1;
    std::optional<StopWake> wake_;  // wakes the waits of the chunk being sent
    av::CodecParametersPtr stream_;
};

}  // namespace

EncoderProcesses::~EncoderProcesses() {
    // Every process reads the end of its socket at once, then each is reaped.
    for (auto& [id, s] : slots_)
        if (s->process) s->process->close_socket();
    slots_.clear();
}

void EncoderProcesses::kill_all() {
    std::lock_guard lock(mu_);
    for (auto& [id, s] : slots_)
        if (s->process) s->process->kill_now();
}

EncoderProcesses::Slot& EncoderProcesses::slot(int id) {
    std::lock_guard lock(mu_);
    auto& s = slots_[id];
    if (!s) s = std::make_unique<Slot>();
    return *s;
}

std::map<int, int> EncoderProcesses::started() const {
    std::lock_guard lock(mu_);
    std::map<int, int> out;
    for (const auto& [id, s] : slots_) out[id] = s->started;
    return out;
}

EncoderFactory process_encoder_factory(EncoderProcesses& processes) {
    return [&processes](const gpu::EncoderSlot& slot, const EncoderSettings& settings) {
        if (!slot.traits().in_encoder_process) return make_encoder_backend(slot, settings);
        return make_process_encoder(processes, slot, settings);
    };
}

std::unique_ptr<EncoderBackend> make_process_encoder(EncoderProcesses& processes, const gpu::EncoderSlot& slot,
                                                     const EncoderSettings& settings) {
    return std::make_unique<SessionDriver>(std::make_unique<ProcessEncoder>(processes, slot, settings), slot);
}

}  // namespace ladder::engine
