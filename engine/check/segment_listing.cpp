#include "engine/check/segment_listing.hpp"

#include <fmt/format.h>

#include "engine/check/validation_text.hpp"

namespace ladder::engine {

const SegmentRegistry::Listing* SegmentRegistry::find(const FileId& id) const {
    const auto it = listings_.find(id);
    return it == listings_.end() ? nullptr : &it->second;
}

void SegmentRegistry::add(const FileId& id, Listing listing) { listings_.emplace(id, std::move(listing)); }

const SegmentRegistry::Listing* ListingCheck::earlier(const FileId& id, std::string_view uri) {
    const SegmentRegistry::Listing* first = registry_.find(id);
    if (!first) return nullptr;
    auto [it, added] = repeats_.try_emplace(id);
    Repeat& r = it->second;
    if (added) {
        order_.push_back(id);
        r.elsewhere = first->list != list_;
        // Listed first here: this is its second time (the first was not noted).
        r.count = r.elsewhere ? 0 : 1;
        r.uri = std::string(uri);
    }
    ++r.count;
    return first;
}

void ListingCheck::record(const FileId& id, std::uint64_t bytes) { registry_.add(id, {list_, bytes}); }

std::vector<std::string> ListingCheck::problems() const {
    std::vector<std::string> out;
    for (const FileId& id : order_) {
        const Repeat& r = repeats_.at(id);
        if (r.elsewhere)
            out.push_back(fmt::format("\"{}\" is also listed by {}", shown_in_problem(r.uri),
                                      registry_.find(id)->list));
        else
            out.push_back(fmt::format("\"{}\" is listed {} times (a segment file plays once)",
                                      shown_in_problem(r.uri), r.count));
    }
    return out;
}

}  // namespace ladder::engine
