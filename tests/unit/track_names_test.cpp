// Names from the source's metadata made fit for HLS quoted strings, XML and
// MP4 titles, and kept apart within a group.
#include "engine/media/track_names.hpp"

#include <gtest/gtest.h>

#include <string>

extern "C" {
#include <libavutil/avstring.h>
}

namespace ladder::engine {
namespace {

// Every byte in a valid UTF-8 sequence, none of them a control character.
bool clean_utf8(const std::string& s) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        std::int32_t code = 0;
        if (av_utf8_decode(&code, &p, end, 0) < 0 || code < 0x20 || (code >= 0x7F && code <= 0x9F)) return false;
    }
    return true;
}

TEST(TrackName, QuotesBecomeApostrophes) {
    EXPECT_EQ(track_name("Director's \"Cut\" commentary"), "Director's 'Cut' commentary");
}

TEST(TrackName, LineBreaksAndTabsBecomeOneSpaceAndControlBytesGo) {
    EXPECT_EQ(track_name("  Two\r\nlines\tand\x0b tab  "), "Two lines and tab");
    EXPECT_EQ(track_name("a\x01" "b\x7f" "c\x1b[31m"), "abc[31m");
    EXPECT_EQ(track_name("next\xC2\x85line\xC2\x90!"), "next line!") << "C1 controls: NEL is a line break";
    EXPECT_EQ(track_name(std::string("nul\0byte", 8)), "nulbyte");
    EXPECT_EQ(track_name("\r\n\x01\t"), "");
}

TEST(TrackName, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
    EXPECT_EQ(track_name("Fran\xE7" "ais"), "Fran\xEF\xBF\xBD" "ais") << "Latin-1";
    EXPECT_EQ(track_name("\xC3" "A"), "\xEF\xBF\xBD" "A") << "a lead byte without its continuation keeps what follows";
    EXPECT_EQ(track_name("\xED\xA0\x80"), "\xEF\xBF\xBD") << "a UTF-16 surrogate";
    EXPECT_EQ(track_name("Fran\xC3\xA7" "ais (forc\xC3\xA9) \xF0\x9F\x8E\xAC"), "Fran\xC3\xA7" "ais (forc\xC3\xA9) \xF0\x9F\x8E\xAC");
    EXPECT_TRUE(clean_utf8(track_name("\xFF\xFE\x80\xC0\xAF x")));
}

TEST(TrackName, LongNamesAreCutAtACharacter) {
    std::string long_title;
    for (int i = 0; i < 500; ++i) long_title += "\xC3\xA9";  // é, two bytes
    const std::string name = track_name(long_title);
    EXPECT_LE(name.size(), kMaxTrackNameBytes);
    EXPECT_GE(name.size(), kMaxTrackNameBytes - 4);
    EXPECT_TRUE(clean_utf8(name)) << name;
    EXPECT_EQ(name.substr(name.size() - 3), "\xE2\x80\xA6");
    const std::string fits(kMaxTrackNameBytes, 'x');
    EXPECT_EQ(track_name(fits), fits);
}

TEST(TrackName, UniqueWithinWhatIsTaken) {
    EXPECT_EQ(unique_track_name("Commentary", 2, {}), "Commentary");
    EXPECT_EQ(unique_track_name("Commentary", 2, {"Commentary"}), "Commentary (track 2)");
    EXPECT_EQ(unique_track_name("Commentary", 2, {"Commentary", "Commentary (track 2)"}), "Commentary (track 2) 2");
}

}  // namespace
}  // namespace ladder::engine
