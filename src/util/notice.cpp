// Notices quote input: printed as util/text.h makes names printable.
#include "util/notice.h"

#include <cstdio>

#include "util/text.h"

namespace schedlab::util {

void Notices::say(const std::string& text) {
  std::lock_guard lock(mutex_);
  if (quiet_ || !said_.insert(text).second) return;
  std::fprintf(stderr, "schedlab: notice: %s\n", printable(text).c_str());
}

}  // namespace schedlab::util
