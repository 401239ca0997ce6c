// Notices quote input: printed as util/text.h makes names printable.
#include "util/notice.h"

#include <cstdio>
#include <utility>

#include "util/text.h"

namespace schedlab::util {

void Notices::say(const std::string& text) {
  std::lock_guard lock(mutex_);
  if (quiet_ || !said_.insert(text).second) return;
  if (hold_) {
    held_.push_back(text);
    held_count_.store(held_.size(), std::memory_order_relaxed);
    return;
  }
  std::fprintf(stderr, "schedlab: notice: %s\n", printable(text).c_str());
}

std::vector<std::string> Notices::take_held() {
  std::lock_guard lock(mutex_);
  held_count_.store(0, std::memory_order_relaxed);
  return std::exchange(held_, {});
}

}  // namespace schedlab::util
