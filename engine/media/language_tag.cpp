#include "engine/media/language_tag.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace ladder::engine {

namespace {

struct Iso639Language {
    std::string_view alpha2;         // ISO 639-1
    std::string_view terminologic;   // ISO 639-2/T
    std::string_view bibliographic;  // ISO 639-2/B where it differs, else empty
};

// Every ISO 639-1 code with its ISO 639-2 codes, as Debian's iso-codes
// (iso_639-2.json) lists them; tests/unit/language_tag_test.cpp compares
// the two.
constexpr std::array<Iso639Language, 184> kIso639_1{{
    {"aa", "aar", ""}, {"ab", "abk", ""}, {"ae", "ave", ""}, {"af", "afr", ""}, {"ak", "aka", ""}, {"am", "amh", ""},
    {"an", "arg", ""}, {"ar", "ara", ""}, {"as", "asm", ""}, {"av", "ava", ""}, {"ay", "aym", ""}, {"az", "aze", ""},
    {"ba", "bak", ""}, {"be", "bel", ""}, {"bg", "bul", ""}, {"bh", "bih", ""}, {"bi", "bis", ""}, {"bm", "bam", ""},
    {"bn", "ben", ""}, {"bo", "bod", "tib"}, {"br", "bre", ""}, {"bs", "bos", ""}, {"ca", "cat", ""},
    {"ce", "che", ""}, {"ch", "cha", ""}, {"co", "cos", ""}, {"cr", "cre", ""}, {"cs", "ces", "cze"},
    {"cu", "chu", ""}, {"cv", "chv", ""}, {"cy", "cym", "wel"}, {"da", "dan", ""}, {"de", "deu", "ger"},
    {"dv", "div", ""}, {"dz", "dzo", ""}, {"ee", "ewe", ""}, {"el", "ell", "gre"}, {"en", "eng", ""},
    {"eo", "epo", ""}, {"es", "spa", ""}, {"et", "est", ""}, {"eu", "eus", "baq"}, {"fa", "fas", "per"},
    {"ff", "ful", ""}, {"fi", "fin", ""}, {"fj", "fij", ""}, {"fo", "fao", ""}, {"fr", "fra", "fre"},
    {"fy", "fry", ""}, {"ga", "gle", ""}, {"gd", "gla", ""}, {"gl", "glg", ""}, {"gn", "grn", ""}, {"gu", "guj", ""},
    {"gv", "glv", ""}, {"ha", "hau", ""}, {"he", "heb", ""}, {"hi", "hin", ""}, {"ho", "hmo", ""}, {"hr", "hrv", ""},
    {"ht", "hat", ""}, {"hu", "hun", ""}, {"hy", "hye", "arm"}, {"hz", "her", ""}, {"ia", "ina", ""},
    {"id", "ind", ""}, {"ie", "ile", ""}, {"ig", "ibo", ""}, {"ii", "iii", ""}, {"ik", "ipk", ""}, {"io", "ido", ""},
    {"is", "isl", "ice"}, {"it", "ita", ""}, {"iu", "iku", ""}, {"ja", "jpn", ""}, {"jv", "jav", ""},
    {"ka", "kat", "geo"}, {"kg", "kon", ""}, {"ki", "kik", ""}, {"kj", "kua", ""}, {"kk", "kaz", ""},
    {"kl", "kal", ""}, {"km", "khm", ""}, {"kn", "kan", ""}, {"ko", "kor", ""}, {"kr", "kau", ""}, {"ks", "kas", ""},
    {"ku", "kur", ""}, {"kv", "kom", ""}, {"kw", "cor", ""}, {"ky", "kir", ""}, {"la", "lat", ""}, {"lb", "ltz", ""},
    {"lg", "lug", ""}, {"li", "lim", ""}, {"ln", "lin", ""}, {"lo", "lao", ""}, {"lt", "lit", ""}, {"lu", "lub", ""},
    {"lv", "lav", ""}, {"mg", "mlg", ""}, {"mh", "mah", ""}, {"mi", "mri", "mao"}, {"mk", "mkd", "mac"},
    {"ml", "mal", ""}, {"mn", "mon", ""}, {"mr", "mar", ""}, {"ms", "msa", "may"}, {"mt", "mlt", ""},
    {"my", "mya", "bur"}, {"na", "nau", ""}, {"nb", "nob", ""}, {"nd", "nde", ""}, {"ne", "nep", ""},
    {"ng", "ndo", ""}, {"nl", "nld", "dut"}, {"nn", "nno", ""}, {"no", "nor", ""}, {"nr", "nbl", ""},
    {"nv", "nav", ""}, {"ny", "nya", ""}, {"oc", "oci", ""}, {"oj", "oji", ""}, {"om", "orm", ""}, {"or", "ori", ""},
    {"os", "oss", ""}, {"pa", "pan", ""}, {"pi", "pli", ""}, {"pl", "pol", ""}, {"ps", "pus", ""}, {"pt", "por", ""},
    {"qu", "que", ""}, {"rm", "roh", ""}, {"rn", "run", ""}, {"ro", "ron", "rum"}, {"ru", "rus", ""},
    {"rw", "kin", ""}, {"sa", "san", ""}, {"sc", "srd", ""}, {"sd", "snd", ""}, {"se", "sme", ""}, {"sg", "sag", ""},
    {"si", "sin", ""}, {"sk", "slk", "slo"}, {"sl", "slv", ""}, {"sm", "smo", ""}, {"sn", "sna", ""},
    {"so", "som", ""}, {"sq", "sqi", "alb"}, {"sr", "srp", ""}, {"ss", "ssw", ""}, {"st", "sot", ""},
    {"su", "sun", ""}, {"sv", "swe", ""}, {"sw", "swa", ""}, {"ta", "tam", ""}, {"te", "tel", ""}, {"tg", "tgk", ""},
    {"th", "tha", ""}, {"ti", "tir", ""}, {"tk", "tuk", ""}, {"tl", "tgl", ""}, {"tn", "tsn", ""}, {"to", "ton", ""},
    {"tr", "tur", ""}, {"ts", "tso", ""}, {"tt", "tat", ""}, {"tw", "twi", ""}, {"ty", "tah", ""}, {"ug", "uig", ""},
    {"uk", "ukr", ""}, {"ur", "urd", ""}, {"uz", "uzb", ""}, {"ve", "ven", ""}, {"vi", "vie", ""}, {"vo", "vol", ""},
    {"wa", "wln", ""}, {"wo", "wol", ""}, {"xh", "xho", ""}, {"yi", "yid", ""}, {"yo", "yor", ""}, {"za", "zha", ""},
    {"zh", "zho", "chi"}, {"zu", "zul", ""}
}};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool all_letters(std::string_view s) { return std::all_of(s.begin(), s.end(), is_letter); }

std::string lowercase(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string uppercase(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

// RFC 5646's subtags are 1-8 letters or digits.
bool well_formed_subtag(std::string_view s) {
    return !s.empty() && s.size() <= 8 &&
           std::all_of(s.begin(), s.end(), [](char c) { return is_letter(c) || is_digit(c); });
}

// "pt_BR" and "pt-BR" alike: some tools write locales with '_'.
std::vector<std::string_view> subtags(std::string_view tag) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = std::min(tag.find_first_of("-_", start), tag.size());
        out.push_back(tag.substr(start, end - start));
        if (end == tag.size()) return out;
        start = end + 1;
    }
}

const Iso639Language* find_language(std::string_view lower_code) {
    const auto it = std::find_if(kIso639_1.begin(), kIso639_1.end(), [&](const Iso639Language& l) {
        return l.alpha2 == lower_code || l.terminologic == lower_code || l.bibliographic == lower_code;
    });
    return it == kIso639_1.end() ? nullptr : &*it;
}

// The language subtag as a two or three letter code, lower case; empty
// when it is none (RFC 5646's 4-8 letter primary subtags are reserved or
// unused, "x-" and "i-" tags name no language ladder can map).
std::string primary_code(std::string_view subtag) {
    if ((subtag.size() != 2 && subtag.size() != 3) || !all_letters(subtag)) return "";
    return lowercase(subtag);
}

// RFC 5646 §2.1.1's letter case: scripts in title case, regions upper
// case, everything else (and everything after a singleton) lower case.
std::string cased_subtag(std::string_view subtag, bool after_singleton) {
    if (after_singleton) return lowercase(subtag);
    if (subtag.size() == 2 && all_letters(subtag)) return uppercase(subtag);
    std::string out = lowercase(subtag);
    if (subtag.size() == 4 && all_letters(subtag)) out.front() = uppercase(out.substr(0, 1)).front();
    return out;
}

std::string_view trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::string rfc5646_language(std::string_view source_tag) {
    const std::vector<std::string_view> parts = subtags(trimmed(source_tag));
    const std::string code = primary_code(parts.front());
    if (code.empty()) return "und";
    const Iso639Language* language = find_language(code);
    std::string out(language ? language->alpha2 : code);
    bool after_singleton = false;
    for (std::size_t i = 1; i < parts.size() && well_formed_subtag(parts[i]); ++i) {
        const bool singleton = parts[i].size() == 1;
        // A singleton needs a subtag after it.
        if (singleton && (i + 1 == parts.size() || !well_formed_subtag(parts[i + 1]))) break;
        out += '-';
        out += cased_subtag(parts[i], after_singleton);
        after_singleton = after_singleton || singleton;
    }
    return out;
}

std::string iso639_2t_language(std::string_view source_tag) {
    const std::string code = primary_code(subtags(trimmed(source_tag)).front());
    if (code.empty()) return "und";
    if (const Iso639Language* language = find_language(code)) return std::string(language->terminologic);
    return code.size() == 3 ? code : "und";
}

}  // namespace ladder::engine
