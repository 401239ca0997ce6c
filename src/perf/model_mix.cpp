// Seeded model assignment for jobs without model information.
#include "perf/model_mix.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>

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

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  throw InputError(file, 0, "perf.model_mix", what);
}

std::vector<std::pair<std::size_t, double>> read_weights(const YAML::Node& map, const ModelCatalog& catalog,
                                                         const std::string& file) {
  if (!map.IsMap() || map.size() == 0) bad(file, "needs a map model -> weight, e.g. {resnet50: 3, bert-large: 1}");
  std::vector<std::pair<std::size_t, double>> out;
  for (const auto& kv : map) {
    std::string name = kv.first.as<std::string>();
    const auto& models = catalog.models();
    auto it = std::find_if(models.begin(), models.end(), [&](const TrainingModel& m) { return m.name == name; });
    if (it == models.end()) bad(file, unknown_name_message("training model", name, catalog.names()));
    double w = 0;
    try {
      w = kv.second.as<double>();
    } catch (const YAML::Exception&) {
      bad(file, "weight of '" + name + "' must be a number, got '" + YAML::Dump(kv.second) + "'");
    }
    if (!(w > 0)) bad(file, "weight of '" + name + "' must be > 0");
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

ModelMix ModelMix::parse(const std::string& yaml, const ModelCatalog& catalog, const std::string& file) {
  // The one guarded YAML load (duplicate keys, aliases); its error names the file.
  YAML::Node root;
  try {
    root = config::parse_yaml(yaml, file);
  } catch (const InputError& e) {
    const std::string prefix = e.line() > 0 ? fmt::format("{}:{}: ", e.file(), e.line()) : e.file() + ": ";
    bad(file, "not valid YAML: " + std::string(e.what()).substr(prefix.size()));
  }
  if (!root.IsMap() || root.size() == 0) bad(file, "needs a map model -> weight, or GPU-count class -> {model: weight}");
  ModelMix mix;
  bool classed = root.begin()->second.IsMap();
  if (!classed) {
    GpuClass c;
    c.weights = read_weights(root, catalog, file);
    mix.classes_.push_back(std::move(c));
    return mix;
  }
  for (const auto& kv : root) {
    std::string key = kv.first.as<std::string>();
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
    if (!ok) bad(file, "GPU-count class '" + key + "' must be N, A-B or N+ (e.g. \"1\", \"2-8\", \"9+\")");
    c.weights = read_weights(kv.second, catalog, file);
    mix.classes_.push_back(std::move(c));
  }
  std::sort(mix.classes_.begin(), mix.classes_.end(),
            [](const GpuClass& a, const GpuClass& b) { return a.min_gpus < b.min_gpus; });
  std::uint64_t next = 1;
  for (const auto& c : mix.classes_) {
    if (c.min_gpus != next)
      bad(file, std::string("GPU-count classes must cover every count from 1 up without overlap; ") +
                    (c.min_gpus < next ? "overlap" : "gap") + " at " + std::to_string(std::min(c.min_gpus, next)) +
                    " GPUs");
    next = c.max_gpus == UINT64_MAX ? UINT64_MAX : c.max_gpus + 1;
  }
  if (next != UINT64_MAX) bad(file, "the last GPU-count class must be open-ended (\"N+\")");
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
