#pragma once
// `ladder validate`: the segment files that playlists and timelines list.
// ladder writes every segment to a file of its own, listed once by one
// media playlist (and once by its I-frame playlist, once by the DASH
// timeline), so a file listed again, in the same list or in another of the
// same kind, is a problem, whatever name leads to it (a second spelling, a
// link). It is read and checked only the first time: the work validate
// does stays bounded by the files on disk, not by what a list claims.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/check/ladder_path.hpp"

namespace ladder::engine {

// Every segment file lists of one kind have named so far.
class SegmentRegistry {
public:
    struct Listing {
        std::string list;         // the list that named it first, as problem lines show it
        std::uint64_t bytes = 0;  // what it measured then
    };

    const Listing* find(const FileId& id) const;
    void add(const FileId& id, Listing listing);

private:
    std::map<FileId, Listing> listings_;
};

// The segment files one list (a playlist, a timeline) names, against the
// registry of its kind.
class ListingCheck {
public:
    // list: the name problem lines give the list ("120p/index.m3u8").
    ListingCheck(SegmentRegistry& registry, std::string list) : registry_(registry), list_(std::move(list)) {}

    // nullptr the first time a file is named (the caller checks it, then
    // calls record); else its first listing, and the repetition is noted.
    const SegmentRegistry::Listing* earlier(const FileId& id, std::string_view uri);
    void record(const FileId& id, std::uint64_t bytes);

    // One line per file named again: "\"seg_00001.m4s\" is listed 3 times"
    // or "\"seg_00001.m4s\" is also listed by 240p/index.m3u8".
    std::vector<std::string> problems() const;

private:
    struct Repeat {
        std::string uri;  // as first named here
        int count = 0;
        bool elsewhere = false;  // first named by another list
    };

    SegmentRegistry& registry_;
    std::string list_;
    std::map<FileId, Repeat> repeats_;
    std::vector<FileId> order_;  // repeated files, in the order first repeated
};

}  // namespace ladder::engine
