// A track's language tag as HLS/DASH (the shortest RFC 5646 tag) and MP4's
// mdhd box (ISO 639-2/T) want it, checked by hand and against Debian's
// iso-codes list of ISO 639-2 (an independent source of the mapping).
#include "engine/media/language_tag.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ladder::engine {
namespace {

TEST(LanguageTag, BibliographicAndTerminologicCodesBecomeTheTwoLetterCode) {
    const std::vector<std::pair<std::string, std::string>> pairs{
        {"ger", "de"}, {"deu", "de"}, {"fre", "fr"}, {"fra", "fr"}, {"chi", "zh"}, {"zho", "zh"}, {"dut", "nl"},
        {"nld", "nl"}, {"cze", "cs"}, {"ces", "cs"}, {"eng", "en"}, {"ENG", "en"}, {"spa", "es"}, {"en", "en"},
        {"De", "de"}};
    for (const auto& [tag, want] : pairs) EXPECT_EQ(rfc5646_language(tag), want) << tag;
}

TEST(LanguageTag, CodesWithoutATwoLetterCodeStayThreeLetters) {
    for (const char* tag : {"fil", "haw", "mul", "und", "zxx", "mis", "yue", "qaa"})
        EXPECT_EQ(rfc5646_language(tag), tag) << tag;
    EXPECT_EQ(rfc5646_language("FIL"), "fil");
}

TEST(LanguageTag, RegionScriptAndOtherSubtagsStayInRfc5646Case) {
    const std::vector<std::pair<std::string, std::string>> pairs{
        {"en-US", "en-US"},           {"pt-BR", "pt-BR"},         {"pt_br", "pt-BR"},
        {"eng-US", "en-US"},          {"ger-AT", "de-AT"},        {"zh-hant-tw", "zh-Hant-TW"},
        {"sr-Latn", "sr-Latn"},       {"es-419", "es-419"},       {"de-CH-1996", "de-CH-1996"},
        {"en-x-Private", "en-x-private"}, {"en-US-", "en-US"},    {"en-US\"x", "en"},
        {"en-toolongsubtag", "en"},   {"en-x", "en"},             {" fr-CA ", "fr-CA"}};
    for (const auto& [tag, want] : pairs) EXPECT_EQ(rfc5646_language(tag), want) << tag;
}

TEST(LanguageTag, WhatIsNoLanguageTagIsUnd) {
    for (const char* tag : {"", " ", "English", "e\"n", "en\r\n", "x-klingon", "i-klingon", "123", "e", "-en",
                            "\xC3\xA9n", "ab\x01"})
        EXPECT_EQ(rfc5646_language(tag), "und") << tag;
}

TEST(LanguageTag, Mdhd) {
    const std::vector<std::pair<std::string, std::string>> pairs{
        {"ger", "deu"}, {"deu", "deu"}, {"de", "deu"}, {"de-AT", "deu"}, {"fre", "fra"}, {"en", "eng"},
        {"EN-us", "eng"}, {"chi", "zho"}, {"fil", "fil"}, {"haw", "haw"}, {"und", "und"}, {"", "und"},
        {"English", "und"}, {"iw", "und"}, {"e\"n", "und"}};
    for (const auto& [tag, want] : pairs) EXPECT_EQ(iso639_2t_language(tag), want) << tag;
}

// Debian's iso-codes (a test dependency: scripts/install-deps.sh).
nlohmann::json iso_639_2() {
    const std::filesystem::path file = "/usr/share/iso-codes/json/iso_639-2.json";
    std::ifstream in(file);
    if (!in) ADD_FAILURE() << "cannot read " << file << ": install the iso-codes package";
    return in ? nlohmann::json::parse(in)["639-2"] : nlohmann::json::array();
}

TEST(LanguageTag, EveryIso639Code) {
    int two_letter = 0;
    for (const auto& entry : iso_639_2()) {
        const std::string t = entry.at("alpha_3");
        if (t.find('-') != std::string::npos) continue;  // "qaa-qtz", a range
        const std::string b = entry.value("bibliographic", t);
        SCOPED_TRACE(entry.dump());
        if (entry.contains("alpha_2")) {
            ++two_letter;
            const std::string alpha2 = entry.at("alpha_2");
            EXPECT_EQ(rfc5646_language(t), alpha2);
            EXPECT_EQ(rfc5646_language(b), alpha2);
            EXPECT_EQ(rfc5646_language(alpha2), alpha2);
            EXPECT_EQ(iso639_2t_language(alpha2), t);
        } else {
            EXPECT_EQ(rfc5646_language(t), t) << "no two-letter code: three letters stay";
        }
        EXPECT_EQ(iso639_2t_language(t), t);
        EXPECT_EQ(iso639_2t_language(b), t);
    }
    EXPECT_EQ(two_letter, 184) << "ISO 639-1 as iso-codes lists it";
}

}  // namespace
}  // namespace ladder::engine
