#pragma once
// The environment for a run of the real ladder binary whose encoders fail
// on chosen slots: tests/fakes/failing_encoder.cpp preloaded into ladder
// and, through the environment they inherit, its encoder processes.
#include <string>
#include <vector>

namespace ladder::test {

// spec: "<slot label>=<open|mid>[@S][*N];..." (see failing_encoder.cpp).
inline std::vector<std::string> failing_slots(const std::string& spec, const std::vector<std::string>& more = {}) {
    std::vector<std::string> env{std::string("LD_PRELOAD=") + LADDER_TEST_FAULT_LIB, "LADDER_TEST_FAIL_SLOTS=" + spec};
    env.insert(env.end(), more.begin(), more.end());
    return env;
}

}  // namespace ladder::test
