// Levenshtein distance and the messages built on it.
#include "util/suggest.h"

#include <algorithm>

namespace schedlab::util {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string unknown_name_message(std::string_view kind, std::string_view word,
                                 const std::vector<std::string>& candidates) {
  std::string msg = "unknown " + std::string(kind) + " '" + std::string(word) + "'";
  std::string near = closest_match(word, candidates);
  if (!near.empty()) msg += "; did you mean '" + near + "'?";
  msg += " valid: " + join(candidates, ", ");
  return msg;
}

}  // namespace schedlab::util
