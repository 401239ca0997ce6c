// One mutex: notices come from the threads of a compare, rarely (a handful per run).
#include "util/notice.h"

#include <cstdio>
#include <mutex>
#include <set>

#include "util/text.h"

namespace schedlab {

namespace {
std::mutex g_mutex;
std::set<std::string> g_said;
bool g_quiet = false;
}  // namespace

void notice(const std::string& text) {
  std::lock_guard lock(g_mutex);
  if (g_quiet || !g_said.insert(text).second) return;
  std::fprintf(stderr, "schedlab: notice: %s\n", printable(text).c_str());  // notices quote input
}

void set_notices_quiet(bool quiet) {
  std::lock_guard lock(g_mutex);
  g_quiet = quiet;
}

}  // namespace schedlab
