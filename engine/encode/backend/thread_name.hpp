#pragma once
// Names the calling thread (what top -H, ps -L, gdb and /proc/<pid>/task/*/comm
// show). The thread that runs a slot's encoder carries the slot's label, in
// ladder's process and in an encoder process alike; threads the encoder
// library starts while it opens inherit the name, so a busy or stuck
// library thread says which slot it works for.
#include <string_view>

namespace ladder::engine {

// Linux keeps 15 bytes of a thread's name; longer names are cut there.
void name_this_thread(std::string_view name);

}  // namespace ladder::engine
