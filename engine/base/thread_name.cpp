#include "engine/base/thread_name.hpp"

#include <pthread.h>

#include <string>

namespace ladder::engine {

void name_this_thread(std::string_view name) {
    // pthread_setname_np refuses (ERANGE) rather than cuts a longer name.
    const std::string cut(name.substr(0, 15));
    ::pthread_setname_np(::pthread_self(), cut.c_str());
}

std::string stage_thread_name(std::string_view stage) {
    std::string name(stage);
    for (std::string_view shared : {"rung ", "encoder "}) {
        if (name.size() <= 15) break;
        if (name.starts_with(shared)) name.erase(0, shared.size());
    }
    return name;
}

}  // namespace ladder::engine
