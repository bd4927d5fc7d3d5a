#pragma once
// Names the calling thread (what top -H, ps -L, gdb and /proc/<pid>/task/*/comm
// show). A stage's thread carries the stage's name (StageThreads); the
// thread that runs a slot's encoder carries the slot's label, in
// ladder's process and in an encoder process alike; threads the encoder
// library starts while it opens inherit the name, so a busy or stuck
// library thread says which slot it works for.
#include <string>
#include <string_view>

namespace ladder::engine {

// Linux keeps 15 bytes of a thread's name; longer names are cut there.
void name_this_thread(std::string_view name);

// A stage's thread name ("rung 1080p scaler 12" -> "1080p scaler 12"):
// the words every stage of its kind shares go first where the name is too
// long, so that the part that tells the stages apart stays.
std::string stage_thread_name(std::string_view stage);

}  // namespace ladder::engine
