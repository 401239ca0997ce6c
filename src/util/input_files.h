// The files this process has read as input (scenarios, clusters, catalogs, profiles, traces,
// logs), by device and inode: an output flag (--out, --events, --skipped, trace convert -o)
// that names one of them is refused, whatever path spells it (a link, "./", "../x/").
// Every input goes through FileBytes or read_config_file, which note it here, so no reader
// has to remember to.
#pragma once

#include <string>

namespace schedlab::util {

// Notes the open file `fd` as an input of this process (regular files only: a pipe or a
// device is never an output's target).
void note_input_file(int fd);
// Notes the file at `path` (when it exists and is a regular file).
void note_input_file(const std::string& path);
// Whether `path` names a file noted as an input.
bool is_input_file(const std::string& path);

}  // namespace schedlab::util
