// Seeded model assignment for jobs without model information.
#include "perf/model_mix.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>

#include "util/named_args_yaml.h"
#include "util/parse.h"
#include "util/yaml_util.h"
#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::perf {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A value for messages: its text, or what it is.
std::string describe(const util::ArgValue& v) {
  switch (v.shape) {
    case util::ArgValue::Shape::scalar:
      return v.text;
    case util::ArgValue::Shape::list:
      return "a list";
    case util::ArgValue::Shape::map:
      return "a map";
    case util::ArgValue::Shape::none:
      return "~";
  }
  return "";
}

void at_line(util::ArgValue& v, long line) {
  v.line = line;
  for (auto& item : v.items) at_line(item, line);
  for (auto& [key, entry] : v.entries) at_line(entry, line);
}

// Errors name perf.model_mix at the line of the value found wrong.
[[noreturn]] void bad(const std::string& file, const util::ArgValue& at, const std::string& what) {
  throw util::InputError(file, at.line, "perf.model_mix", what);
}

std::vector<std::pair<std::size_t, double>> read_weights(const util::ArgValue& map, const ModelCatalog& catalog,
                                                         const std::string& file) {
  if (map.shape != util::ArgValue::Shape::map || map.entries.empty())
    bad(file, map, "needs a map model -> weight, e.g. {resnet50: 3, bert-large: 1}");
  std::vector<std::pair<std::size_t, double>> out;
  for (const auto& [name, weight] : map.entries) {
    const auto& models = catalog.models();
    // By its own name: clang before 16 cannot capture a structured binding.
    auto it = std::find_if(models.begin(), models.end(), [&want = name](const TrainingModel& m) { return m.name == want; });
    if (it == models.end()) bad(file, weight, util::unknown_name_message("training model", name, catalog.names()));
    double w = 0;
    if (weight.shape != util::ArgValue::Shape::scalar || !util::try_parse_double(util::trim(weight.text), w))
      bad(file, weight, "weight of '" + name + "' must be a number, got '" + describe(weight) + "'");
    if (!(w > 0)) bad(file, weight, "weight of '" + name + "' must be > 0");
    out.emplace_back(static_cast<std::size_t>(it - models.begin()), w);
  }
  return out;
}

bool parse_u64(std::string_view s, std::uint64_t& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size() && v >= 1;
}

}  // namespace

double mix_uniform(std::uint64_t seed, std::uint64_t id) {
  std::uint64_t h = splitmix64(splitmix64(seed) ^ id);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

ModelMix ModelMix::uniform(const ModelCatalog& catalog) {
  ModelMix mix;
  GpuClass c;
  for (std::size_t i = 0; i < catalog.models().size(); ++i) c.weights.emplace_back(i, 1.0);
  mix.classes_.push_back(std::move(c));
  return mix;
}

ModelMix ModelMix::parse(const util::ArgValue& value, const ModelCatalog& catalog, const std::string& file) {
  // A mix written as a quoted string ("{resnet50: 3}") is read as the YAML it holds, through the
  // one guarded YAML load (duplicate keys, aliases); its error names the file.
  if (value.shape == util::ArgValue::Shape::scalar) {
    YAML::Node root;
    try {
      root = util::parse_yaml(value.text, file);
    } catch (const util::InputError& e) {
      bad(file, value, "not valid YAML: " + e.what_here());
    }
    util::ArgValue parsed = util::arg_value(root, util::At{file, "perf.model_mix"});
    at_line(parsed, value.line);  // lines within the string are not the file's
    return parse(parsed, catalog, file);
  }
  const util::ArgValue& root = value;
  if (root.shape != util::ArgValue::Shape::map || root.entries.empty())
    bad(file, root, "needs a map model -> weight, or GPU-count class -> {model: weight}");
  ModelMix mix;
  bool classed = root.entries.front().second.shape == util::ArgValue::Shape::map;
  if (!classed) {
    GpuClass c;
    c.weights = read_weights(root, catalog, file);
    mix.classes_.push_back(std::move(c));
    return mix;
  }
  for (const auto& [key, classed_weights] : root.entries) {
    GpuClass c;
    std::string_view k = key;
    bool ok;
    if (!k.empty() && k.back() == '+') {
      ok = parse_u64(k.substr(0, k.size() - 1), c.min_gpus);
    } else if (auto dash = k.find('-'); dash != std::string_view::npos) {
      ok = parse_u64(k.substr(0, dash), c.min_gpus) && parse_u64(k.substr(dash + 1), c.max_gpus) &&
           c.min_gpus <= c.max_gpus;
    } else {
      ok = parse_u64(k, c.min_gpus);
      c.max_gpus = c.min_gpus;
    }
    if (!ok) bad(file, classed_weights, "GPU-count class '" + key + "' must be N, A-B or N+ (e.g. \"1\", \"2-8\", \"9+\")");
    c.weights = read_weights(classed_weights, catalog, file);
    mix.classes_.push_back(std::move(c));
  }
  std::sort(mix.classes_.begin(), mix.classes_.end(),
            [](const GpuClass& a, const GpuClass& b) { return a.min_gpus < b.min_gpus; });
  std::uint64_t next = 1;
  for (const auto& c : mix.classes_) {
    if (c.min_gpus != next)
      bad(file, root, std::string("GPU-count classes must cover every count from 1 up without overlap; ") +
                    (c.min_gpus < next ? "overlap" : "gap") + " at " + std::to_string(std::min(c.min_gpus, next)) +
                    " GPUs");
    next = c.max_gpus == UINT64_MAX ? UINT64_MAX : c.max_gpus + 1;
  }
  if (next != UINT64_MAX) bad(file, root, "the last GPU-count class must be open-ended (\"N+\")");
  return mix;
}

std::size_t ModelMix::pick(std::uint64_t seed, const workload::JobSpec& job) const {
  std::uint64_t g = std::max<std::uint64_t>(job.total_gpus(), 1);
  const GpuClass* c = &classes_.front();
  for (const auto& k : classes_)
    if (g >= k.min_gpus && g <= k.max_gpus) c = &k;
  double total = 0;
  for (const auto& [i, w] : c->weights) total += w;
  double u = mix_uniform(seed, job.id) * total;
  double acc = 0;
  for (const auto& [i, w] : c->weights) {
    acc += w;
    if (u < acc) return i;
  }
  return c->weights.back().first;
}

}  // namespace schedlab::perf
