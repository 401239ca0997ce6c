// Whether a process id names a live process, for judging folders that dead processes left
// behind. A zombie is dead: killed processes whose parent died too are reparented, and in a
// container whose first process never reaps them they stay zombies, which kill(pid, 0) still
// answers for.
#pragma once

#include <sys/types.h>

namespace schedlab::util {

// True when `pid` runs (or belongs to another user: not ours to judge); false when it does
// not exist or is a zombie.
bool process_alive(pid_t pid);

}  // namespace schedlab::util
