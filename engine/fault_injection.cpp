#include "engine/fault_injection.hpp"

#include <csignal>

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "engine/errors.hpp"

namespace ladder::engine {

namespace {

struct Fault {
    std::string mode;
    int skip = 0;        // chunks that succeed before the faults start
    int remaining = -1;  // -1: every time
};

std::map<std::string, Fault> parse_faults() {
    std::map<std::string, Fault> parsed;
    {
        const char* env = std::getenv("LADDER_TEST_FAULTS");
        if (!env) return parsed;
        std::stringstream ss(env);
        std::string entry;
        while (std::getline(ss, entry, ';')) {
            const auto eq = entry.find('=');
            if (eq == std::string::npos) continue;
            Fault f;
            std::string spec = entry.substr(eq + 1);
            const auto star = spec.find('*');
            if (star != std::string::npos) {
                f.remaining = std::atoi(spec.c_str() + star + 1);
                spec.resize(star);
            }
            const auto at = spec.find('@');
            if (at != std::string::npos) {
                f.skip = std::atoi(spec.c_str() + at + 1);
                spec.resize(at);
            }
            f.mode = spec;
            parsed[entry.substr(0, eq)] = f;
        }
    }
    return parsed;
}

struct FaultTable {
    std::mutex mu;
    std::map<std::string, Fault> by_slot = parse_faults();
};

FaultTable& table() {
    static FaultTable t;
    return t;
}

// Whether this chunk on this slot should fail, and how.
std::string take_fault(const std::string& slot) {
    FaultTable& t = table();
    std::lock_guard lock(t.mu);
    auto it = t.by_slot.find(slot);
    if (it == t.by_slot.end() || it->second.remaining == 0 || it->second.mode == "probe") return "";
    if (it->second.skip > 0) {
        --it->second.skip;
        return "";
    }
    if (it->second.remaining > 0) --it->second.remaining;
    return it->second.mode;
}

class FaultyEncoder final : public EncoderBackend {
public:
    FaultyEncoder(gpu::EncoderSlot slot, std::unique_ptr<EncoderBackend> real)
        : slot_(std::move(slot)), real_(std::move(real)) {}

    EncodedChunk encode(const RawChunk& chunk, std::stop_token stop) override {
        const std::string fault = take_fault(slot_.label);
        if (fault == "open")
            throw RunError(fmt::format("opening {} on {}: injected fault (LADDER_TEST_FAULTS)", slot_.encoder,
                                       slot_.label));
        if (fault == "crash") std::raise(SIGSEGV);  // what a crashing encoder library does
        if (fault == "mid") {
            RawChunk half;
            half.rung = chunk.rung;
            half.index = chunk.index;
            half.first_frame = chunk.first_frame;
            for (std::size_t i = 0; i < std::max<std::size_t>(1, chunk.frames.size() / 2); ++i)
                half.frames.push_back(av::ref_frame(chunk.frames[i].get()));
            real_->encode(half, stop);
            throw RunError(fmt::format("encoding chunk {} on {}: injected fault after {} frames (LADDER_TEST_FAULTS)",
                                       chunk.index, slot_.label, half.frames.size()));
        }
        return real_->encode(chunk, stop);
    }

    void probe() override {
        {
            FaultTable& t = table();
            std::lock_guard lock(t.mu);
            auto it = t.by_slot.find(slot_.label);
            if (it != t.by_slot.end() && it->second.mode == "probe")
                throw RunError(fmt::format("opening {} on {}: injected pre-flight fault (LADDER_TEST_FAULTS)",
                                           slot_.encoder, slot_.label));
        }
        real_->probe();
    }

private:
    gpu::EncoderSlot slot_;
    std::unique_ptr<EncoderBackend> real_;
};

}  // namespace

std::unique_ptr<EncoderBackend> with_injected_faults(const gpu::EncoderSlot& slot,
                                                     std::unique_ptr<EncoderBackend> real) {
    if (!std::getenv("LADDER_TEST_FAULTS")) return real;
    return std::make_unique<FaultyEncoder>(slot, std::move(real));
}

}  // namespace ladder::engine
