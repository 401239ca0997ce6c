#include "sched/gittins_tiresias.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "engine/time.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/line_reader.h"
#include "util/parse.h"

namespace schedlab::sched {

std::vector<double> read_gittins_samples(const std::string& path) {
  util::LineReader in(path);
  std::string_view line;
  if (!in.next(line)) throw util::InputError(path, 1, "duration", "no header row (a CSV with a duration column)");
  static constexpr std::array<const char*, 1> kNames{"duration"};
  std::array<int, 1> pos{};
  util::read_csv_header(line, path, in.line_number(), util::CsvHeaderSpec{kNames, 1, false, ""}, pos);
  std::vector<double> out;
  std::vector<std::string_view> fields;
  while (in.next(line)) {
    if (util::trim(line).empty()) continue;
    util::split_fields(line, ',', fields);
    const long at = in.line_number();
    if (fields.size() <= static_cast<std::size_t>(pos[0]))
      throw util::InputError(path, at, "duration", "the row has no duration column");
    const double s = util::parse_double(util::trim(fields[static_cast<std::size_t>(pos[0])]), {path, at, "duration"});
    if (!(s >= 1) || s > 1e9) throw util::InputError(path, at, "duration", "must be 1 to 1e9 seconds");
    out.push_back(static_cast<double>(engine::from_seconds(s)));
  }
  if (out.empty()) throw util::InputError(path, in.line_number(), "duration", "no samples");
  return out;
}

double round_half_away(double x, int digits) {
  // x = mant / 2^shift exactly; x 10^digits is then a ratio of integers, rounded exactly (a
  // product rounded in doubles could move a value off its half).
  __extension__ using u128 = unsigned __int128;
  int exp = 0;
  const double m = std::frexp(x, &exp);
  const auto mant = static_cast<std::uint64_t>(std::ldexp(m, 53));
  const int shift = 53 - exp;
  std::uint64_t scale = 1;
  for (int d = 0; d < digits; ++d) scale *= 10;
  if (shift <= 0 || x == 0) return x;  // a whole number
  if (shift >= 120) return 0;          // far below the last digit kept
  const u128 scaled = static_cast<u128>(mant) * scale;
  u128 q = scaled >> shift;
  if (scaled - (q << shift) >= (static_cast<u128>(1) << (shift - 1))) ++q;
  return static_cast<double>(q) / static_cast<double>(scale);
}

double tiresias_rank(const std::vector<double>& sorted, const std::vector<double>& prefix, double quantum,
                     std::size_t i) {
  const double second = static_cast<double>(engine::from_seconds(1));
  const std::size_t n = sorted.size();
  const double reach = sorted[i] - second + quantum;
  const std::size_t k =
      reach >= sorted.back()
          ? n - 1
          : static_cast<std::size_t>(std::upper_bound(sorted.begin(), sorted.end(), reach) - sorted.begin());
  const double left = static_cast<double>(n - i);
  const double p = round_half_away(static_cast<double>(k - i) / left, 5);
  const double sum_s = (prefix[k] - prefix[i] + quantum * static_cast<double>(n - k)) / second;
  const double e = std::floor(sum_s / left);
  return round_half_away(p * 1000000.0 / e, 4);
}

}  // namespace schedlab::sched
