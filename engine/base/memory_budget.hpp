#pragma once
// The byte budget for frames queued for encoding: a rung scaler reserves a
// chunk's bytes before queueing it (blocking, first come first served, while
// the budget is full — which in turn blocks the decode pump), and the
// reservation is returned when the chunk's raw frames are freed after
// encoding. Each rung additionally holds the one chunk it is building.
// It calls nobody: a producer that has to wait says so itself (try_reserve()
// first, then ChunkInlet::waiting_for_memory around reserve()). Its lock
// (mu_) is a leaf: nothing is called under it.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>

namespace ladder::engine {

class MemoryBudget;

// Move-only; returns its bytes when destroyed.
class BudgetReservation {
public:
    BudgetReservation() = default;
    BudgetReservation(BudgetReservation&& other) noexcept;
    BudgetReservation& operator=(BudgetReservation&& other) noexcept;
    BudgetReservation(const BudgetReservation&) = delete;
    BudgetReservation& operator=(const BudgetReservation&) = delete;
    ~BudgetReservation();

    std::uint64_t bytes() const { return bytes_; }

private:
    friend class MemoryBudget;
    BudgetReservation(MemoryBudget* budget, std::uint64_t bytes) : budget_(budget), bytes_(bytes) {}
    void release();
    MemoryBudget* budget_ = nullptr;
    std::uint64_t bytes_ = 0;
};

class MemoryBudget {
public:
    explicit MemoryBudget(std::uint64_t limit);
    MemoryBudget(const MemoryBudget&) = delete;
    MemoryBudget& operator=(const MemoryBudget&) = delete;

    // Blocks until the bytes fit and earlier callers are served; nullopt on
    // stop. bytes larger than the whole budget is a logic error (checked
    // before the run starts).
    std::optional<BudgetReservation> reserve(std::uint64_t bytes, std::stop_token stop);
    // Without waiting: the reservation when the bytes fit now and nobody
    // waits in line before it; nullopt otherwise (then reserve() would wait).
    std::optional<BudgetReservation> try_reserve(std::uint64_t bytes);

    std::uint64_t limit() const { return limit_; }
    std::uint64_t used() const;
    std::uint64_t peak() const;

private:
    friend class BudgetReservation;
    void give_back(std::uint64_t bytes);

    const std::uint64_t limit_;
    mutable std::mutex mu_;  // the budget's own: guards what follows; a leaf
    std::condition_variable_any cv_;
    std::uint64_t used_ = 0;
    std::uint64_t peak_ = 0;
    std::uint64_t next_ticket_ = 0;
    std::deque<std::uint64_t> line_;
};

// "512M", "2G", "1500000000", "64k" (powers of 1024); throws invalid_argument.
std::uint64_t parse_byte_size(const std::string& text);

}  // namespace ladder::engine
