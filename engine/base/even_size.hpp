#pragma once
// Picture sizes for 4:2:0 video must be even: the nearest even integer, at
// least 2. Shared by the source's display size and the ladder's derived widths
// so both round the same way.
#include <algorithm>
#include <cmath>

namespace ladder::engine {

inline int even_round(double v) { return std::max(2, static_cast<int>(std::lround(v / 2.0)) * 2); }

}  // namespace ladder::engine
