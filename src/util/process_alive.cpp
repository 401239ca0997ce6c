// Linux: the state letter in /proc/PID/stat follows the command name's closing parenthesis.
#include "util/process_alive.h"

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace schedlab::util {

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!stat || !std::getline(stat, text)) return true;  // no /proc: trust kill()
  const auto paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] != 'Z';
}

}  // namespace schedlab::util
