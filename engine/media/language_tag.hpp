#pragma once
// A track's language as each output wants it, from the tag the source's
// container gave it (Matroska and MP4 carry ISO 639-2 codes, bibliographic
// "ger" as often as terminologic "deu"; some files carry RFC 5646 tags such
// as "en-US"): HLS LANGUAGE and DASH lang take the shortest RFC 5646 tag
// ("de"), the mdhd box of an MP4 track the ISO 639-2/T code ("deu").
// FFmpeg has the mapping (libavformat's ff_convert_lang_to) but keeps it
// internal, so ladder carries the ISO 639-1 part of it: every language that
// has a two-letter code (184), with its ISO 639-2/T and /B codes.
#include <string>
#include <string_view>

namespace ladder::engine {

// The shortest well-formed RFC 5646 tag for the source's language tag:
// an ISO 639-2 code (/B or /T) with an ISO 639-1 code becomes that code
// ("ger", "deu" -> "de"); other three-letter codes stay ("fil", "mul",
// "und", "zxx"); script, region and further subtags are kept, in RFC 5646's
// letter case ("pt_br" -> "pt-BR", "zh-hant-tw" -> "zh-Hant-TW"), up to the
// first one that is not well-formed. "und" for anything that is not a
// language tag (empty, "English", control bytes, quotes).
std::string rfc5646_language(std::string_view source_tag);

// The ISO 639-2/T code of the tag's language, as MP4's mdhd box packs it:
// "ger", "de", "de-AT" -> "deu"; three letters without a two-letter code
// stay as they are; "und" when there is no language.
std::string iso639_2t_language(std::string_view source_tag);

}  // namespace ladder::engine
