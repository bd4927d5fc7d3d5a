#include "gpu/gpu_pool.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace ladder::gpu {

GpuLease::GpuLease(GpuLease&& other) noexcept : pool_(other.pool_), slot_(other.slot_) {
    other.pool_ = nullptr;
    other.slot_ = -1;
}

GpuLease& GpuLease::operator=(GpuLease&& other) noexcept {
    if (this != &other) {
        release();
        pool_ = other.pool_;
        slot_ = other.slot_;
        other.pool_ = nullptr;
        other.slot_ = -1;
    }
    return *this;
}

GpuLease::~GpuLease() { release(); }

const EncoderSlot& GpuLease::slot() const {
    if (!pool_) throw std::logic_error("empty GpuLease");
    return pool_->slots_[static_cast<std::size_t>(slot_)];
}

void GpuLease::retire() {
    if (pool_) {
        pool_->take_out(slot_);
        pool_ = nullptr;
        slot_ = -1;
    }
}

void GpuLease::release() {
    if (pool_) {
        pool_->give_back(slot_);
        pool_ = nullptr;
        slot_ = -1;
    }
}

GpuPool::GpuPool(std::vector<EncoderSlot> slots) : slots_(std::move(slots)) {
    if (slots_.empty()) throw std::invalid_argument("GpuPool needs at least one slot");
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        slots_[i].id = static_cast<int>(i);
        free_.push_back(static_cast<int>(i));
    }
}

GpuPool::~GpuPool() {
    // Every lease must be returned before the pool goes away.
    assert(free_.size() + retired_ == slots_.size());
}

bool GpuPool::my_turn(std::uint64_t ticket, ClaimPriority priority) const {
    if (free_.empty()) return false;
    if (priority == ClaimPriority::primary) return !primary_line_.empty() && primary_line_.front() == ticket;
    return primary_line_.empty() && !helper_line_.empty() && helper_line_.front() == ticket;
}

GpuLease GpuPool::take(std::uint64_t ticket, ClaimPriority priority) {
    auto& line = priority == ClaimPriority::primary ? primary_line_ : helper_line_;
    assert(!line.empty() && line.front() == ticket);
    (void)ticket;
    line.pop_front();
    int slot = free_.front();
    free_.pop_front();
    ++granted_;
    // Others in line may now be first with another free slot.
    cv_.notify_all();
    return GpuLease(this, slot);
}

std::optional<GpuLease> GpuPool::claim(ClaimPriority priority, std::stop_token stop) {
    std::unique_lock lock(mu_);
    const std::uint64_t ticket = next_ticket_++;
    auto& line = priority == ClaimPriority::primary ? primary_line_ : helper_line_;
    line.push_back(ticket);
    bool ok = cv_.wait(lock, stop, [&] { return my_turn(ticket, priority); });
    if (!ok) {
        line.erase(std::find(line.begin(), line.end(), ticket));
        cv_.notify_all();
        return std::nullopt;
    }
    return take(ticket, priority);
}

std::optional<GpuLease> GpuPool::try_claim(ClaimPriority priority) {
    std::lock_guard lock(mu_);
    if (free_.empty() || !primary_line_.empty() ||
        (priority == ClaimPriority::helper && !helper_line_.empty()))
        return std::nullopt;
    const std::uint64_t ticket = next_ticket_++;
    (priority == ClaimPriority::primary ? primary_line_ : helper_line_).push_back(ticket);
    return take(ticket, priority);
}

void GpuPool::give_back(int slot) {
    {
        std::lock_guard lock(mu_);
        free_.push_back(slot);
    }
    cv_.notify_all();
}

void GpuPool::take_out(int) {
    std::lock_guard lock(mu_);
    ++retired_;
}

std::size_t GpuPool::available() const {
    std::lock_guard lock(mu_);
    return free_.size();
}

std::uint64_t GpuPool::leases_granted() const {
    std::lock_guard lock(mu_);
    return granted_;
}

void EncoderSlot::set_encoder(std::string name) {
    traits_record = find_encoder_traits(name);
    encoder = std::move(name);
}

const EncoderTraits& EncoderSlot::traits() const {
    if (!traits_record)
        throw std::logic_error("slot " + label + ": encoder '" + encoder + "' is not one ladder drives");
    return *traits_record;
}

int nvenc_gpu(const EncoderSlot& slot) {
    if (slot.kind != DeviceKind::nvidia || slot.device.empty()) return -1;
    try {
        return std::stoi(slot.device);
    } catch (const std::exception&) {
        return -1;
    }
}

}  // namespace ladder::gpu
