#pragma once
// Keeps a rung's average bit rate on target across chunks. Every chunk is
// encoded by a fresh encoder whose one-pass VBR has no history, and SVT-AV1
// 1.4 overshoots 2-second chunks by 4-18% where the same encoder on the
// whole file lands within 3% (docs/benchmarks.md). Per encoder kind on the
// rung, its response (bits made / bits asked over its finished chunks)
// scales the next request: target / response.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace ladder::engine {

class RungRateFeedback {
public:
    explicit RungRateFeedback(int target_kbps) : target_kbps_(target_kbps) {}

    struct Request {
        int kbps = 0;           // what to ask the encoder for
        std::uint64_t id = 0;   // for finish() / abandon()
    };
    // A chunk of `seconds` is about to be encoded by `encoder`. prior: the
    // response to assume while this rung has none measured for the encoder
    // (the same encoder's response on the other rungs: when the biggest
    // chunks go first, a whole rung's chunks can start before any of them
    // has finished).
    Request begin(const std::string& encoder, double seconds, double prior = 1.0);
    // The chunk (or session) made `bits` in `seconds` of video (default: the
    // seconds given to begin(); a session may end before its planned run).
    void finish(const Request& request, double bits, std::optional<double> seconds = std::nullopt);
    // The attempt failed: it makes nothing.
    void abandon(const Request& request);

    // Estimated bits made / bits asked for this encoder (1 before any chunk).
    double response(const std::string& encoder) const;
    // The same, or nothing before the encoder finished a chunk on this rung.
    std::optional<double> measured_response(const std::string& encoder) const;

private:
    struct Pending {
        std::string encoder;
        int kbps = 0;
        double seconds = 0;
    };
    double response_locked(const std::string& encoder, double prior = 1.0) const;

    int target_kbps_;
    mutable std::mutex mu_;
    struct Sums {
        double asked_bits = 0;
        double made_bits = 0;
    };
    std::map<std::string, Sums> sums_;
    std::map<std::string, double> response_;  // made / asked, clamped
    std::map<std::uint64_t, Pending> pending_;
    std::uint64_t next_id_ = 1;
};

}  // namespace ladder::engine
