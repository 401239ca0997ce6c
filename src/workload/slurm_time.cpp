#include "workload/slurm_time.h"

#include <vector>

#include "util/parse.h"

namespace schedlab::workload {

std::optional<std::uint64_t> slurm_duration_seconds(std::string_view text) {
  std::string_view rest = util::trim(text);
  std::uint64_t days = 0;
  const auto dash = rest.find('-');
  const bool has_days = dash != std::string_view::npos;
  auto number = [](std::string_view digits, std::uint64_t& out) {
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    out = 0;
    for (char c : digits) out = out * 10 + static_cast<std::uint64_t>(c - '0');
    return true;
  };
  if (has_days) {
    if (!number(rest.substr(0, dash), days) || days > 100000) return std::nullopt;
    rest = rest.substr(dash + 1);
  }
  // sacct may print fractions of a second (Elapsed of a step): they are below our unit here.
  if (auto dot = rest.find('.'); dot != std::string_view::npos && rest.find(':') != std::string_view::npos &&
                                 dot > rest.rfind(':'))
    rest = rest.substr(0, dot);
  std::vector<std::string_view> parts;
  util::split_fields(rest, ':', parts);
  if (rest.empty() || parts.size() > 3) return std::nullopt;
  std::uint64_t v[3] = {0, 0, 0};
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (!number(parts[i], v[i])) return std::nullopt;
  std::uint64_t seconds = 0;
  if (has_days)  // D-HH, D-HH:MM, D-HH:MM:SS
    seconds = v[0] * 3600 + v[1] * 60 + v[2];
  else if (parts.size() == 1)  // MM
    seconds = v[0] * 60;
  else if (parts.size() == 2)  // MM:SS
    seconds = v[0] * 60 + v[1];
  else  // HH:MM:SS
    seconds = v[0] * 3600 + v[1] * 60 + v[2];
  return days * 86400 + seconds;
}

}  // namespace schedlab::workload
