#include "engine/base/memory_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>

namespace ladder::engine {

BudgetReservation::BudgetReservation(BudgetReservation&& other) noexcept
    : budget_(other.budget_), bytes_(other.bytes_) {
    other.budget_ = nullptr;
    other.bytes_ = 0;
}

BudgetReservation& BudgetReservation::operator=(BudgetReservation&& other) noexcept {
    if (this != &other) {
        release();
        budget_ = other.budget_;
        bytes_ = other.bytes_;
        other.budget_ = nullptr;
        other.bytes_ = 0;
    }
    return *this;
}

BudgetReservation::~BudgetReservation() { release(); }

void BudgetReservation::release() {
    if (budget_) budget_->give_back(bytes_);
    budget_ = nullptr;
    bytes_ = 0;
}

MemoryBudget::MemoryBudget(std::uint64_t limit) : limit_(limit) {}

std::optional<BudgetReservation> MemoryBudget::reserve(std::uint64_t bytes, std::stop_token stop) {
    if (bytes > limit_) throw std::logic_error("reservation larger than the memory budget");
    std::unique_lock lock(mu_);
    const std::uint64_t ticket = next_ticket_++;
    line_.push_back(ticket);
    const auto served = [&] { return line_.front() == ticket && used_ + bytes <= limit_; };
    const bool ok = cv_.wait(lock, stop, served);
    if (!ok) {
        line_.erase(std::find(line_.begin(), line_.end(), ticket));
        cv_.notify_all();
        return std::nullopt;
    }
    line_.pop_front();
    used_ += bytes;
    peak_ = std::max(peak_, used_);
    cv_.notify_all();
    return BudgetReservation(this, bytes);
}

std::optional<BudgetReservation> MemoryBudget::try_reserve(std::uint64_t bytes) {
    if (bytes > limit_) throw std::logic_error("reservation larger than the memory budget");
    std::lock_guard lock(mu_);
    if (!line_.empty() || used_ + bytes > limit_) return std::nullopt;
    used_ += bytes;
    peak_ = std::max(peak_, used_);
    return BudgetReservation(this, bytes);
}

void MemoryBudget::give_back(std::uint64_t bytes) {
    {
        std::lock_guard lock(mu_);
        used_ -= bytes;
    }
    cv_.notify_all();
}

std::uint64_t MemoryBudget::used() const {
    std::lock_guard lock(mu_);
    return used_;
}

std::uint64_t MemoryBudget::peak() const {
    std::lock_guard lock(mu_);
    return peak_;
}

std::uint64_t parse_byte_size(const std::string& text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    const std::string unit = text.substr(digits);
    if (digits == 0 || digits > 15 || unit.size() > 1)
        throw std::invalid_argument(fmt::format("'{}' is not a size: use bytes or a number with K, M or G (512M)", text));
    std::uint64_t value = std::stoull(text.substr(0, digits));
    switch (unit.empty() ? ' ' : std::toupper(static_cast<unsigned char>(unit[0]))) {
        case ' ': break;
        case 'K': value <<= 10; break;
        case 'M': value <<= 20; break;
        case 'G': value <<= 30; break;
        default: throw std::invalid_argument(fmt::format("'{}': unknown size unit (use K, M or G)", text));
    }
    return value;
}

}  // namespace ladder::engine
