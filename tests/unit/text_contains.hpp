#pragma once
// One definition of the substring check several tests use, so that the test
// files can share a translation unit (the sanitizer presets are unity builds).
#include <string>

namespace ladder::test {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace ladder::test
