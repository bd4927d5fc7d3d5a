#include "engine/encode/backend/thread_name.hpp"

#include <pthread.h>

#include <string>

namespace ladder::engine {

void name_this_thread(std::string_view name) {
    // pthread_setname_np refuses (ERANGE) rather than cuts a longer name.
    const std::string cut(name.substr(0, 15));
    ::pthread_setname_np(::pthread_self(), cut.c_str());
}

}  // namespace ladder::engine
