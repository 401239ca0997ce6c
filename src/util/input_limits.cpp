// Messages for the bounds of util/input_limits.h.
#include "util/input_limits.h"

#include <fmt/format.h>

namespace schedlab::util {

std::string line_too_long_message() {
  return fmt::format("is longer than {} MiB ({} bytes), the most a line of input may hold", kMaxLineBytes >> 20,
                     kMaxLineBytes);
}

}  // namespace schedlab::util
