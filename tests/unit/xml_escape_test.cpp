// av::xml_escape: the five markup characters become entities and control
// characters XML forbids become U+FFFD, so any report text gives a document
// that parses.
#include "av/xml_escape.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ladder::test {
namespace {

TEST(XmlEscape, MarkupCharacters) {
    EXPECT_EQ(av::xml_escape("a<b&\"c\">'d'"), "a&lt;b&amp;&quot;c&quot;&gt;&apos;d&apos;");
    EXPECT_EQ(av::xml_escape("&amp;"), "&amp;amp;");
    EXPECT_EQ(av::xml_escape(""), "");
}

TEST(XmlEscape, KeepsUtf8AndAllowedWhitespace) {
    EXPECT_EQ(av::xml_escape("clip — é.mp4\ttab\nline\r"), "clip — é.mp4\ttab\nline\r");
}

TEST(XmlEscape, ReplacesForbiddenControlCharactersNulIncluded) {
    const std::string in("a\x01" "b\x1f" "c\0d", 7);
    EXPECT_EQ(av::xml_escape(in), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD" "d");
}

}  // namespace
}  // namespace ladder::test
