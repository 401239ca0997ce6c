// Loading configs/models.yaml and the per-GPU throughput rule.
#include "perf/model_catalog.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "util/yaml_util.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::perf {

using util::At;

std::size_t dtype_bytes(Dtype dtype) { return dtype == Dtype::fp32 ? 4 : 2; }

double default_checkpoint_bytes_per_param(Dtype dtype) { return dtype == Dtype::fp32 ? 12.0 : 14.0; }

bool ModelCatalog::checkpoint_cost(const TrainingModel& model, workload::CheckpointCost& out) const {
  if (model.ckpt_interval_s < 0 || ckpt_write_gb_s <= 0 || ckpt_read_gb_s <= 0) return false;
  const double bytes = model.params * model.ckpt_bytes_per_param;
  out.interval = engine::from_seconds(model.ckpt_interval_s);
  out.save = engine::from_seconds(bytes / (ckpt_write_gb_s * 1e9));
  out.restore = engine::from_seconds(bytes / (ckpt_read_gb_s * 1e9));
  return true;
}

double TrainingModel::gradient_bytes() const { return params * static_cast<double>(dtype_bytes(grad_dtype)); }

const TrainingModel* ModelCatalog::find(const std::string& name) const {
  for (const auto& m : models_)
    if (m.name == name) return &m;
  return nullptr;
}

const TrainingModel& ModelCatalog::get(const std::string& name) const {
  if (const auto* m = find(name)) return *m;
  throw util::InputError(file, 0, "model", util::unknown_name_message("training model", name, names()));
}

std::vector<std::string> ModelCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& m : models_) out.push_back(m.name);
  return out;
}

namespace {

Dtype read_dtype(const YAML::Node& n, const util::At& at) {
  auto d = dtype_from_name(util::get_choice(n, at, dtype_names()));
  return *d;
}

// Batches up to 2^24 samples per step; the noise scale is in samples, within the same bound
// times a thousand (Pollux's traces reach ~4e4).
constexpr double kMaxNoiseScale = 1e12;

StatisticalEfficiency read_stat_eff(const YAML::Node& e, const util::At& at) {
  util::require_map(e, at);
  util::check_keys(e, {"init_batch", "max_batch", "noise_scale", "source"}, at);
  for (const char* key : {"init_batch", "max_batch", "noise_scale", "source"})
    if (!e[key]) util::fail(e, at / key, "required key is missing");
  StatisticalEfficiency s;
  s.init_batch = util::get_int_in<int>(e["init_batch"], at / "init_batch", 1, kMaxBatch);
  s.max_batch = util::get_int_in<int>(e["max_batch"], at / "max_batch", 1, kMaxBatch);
  if (s.max_batch < s.init_batch)
    util::fail(e["max_batch"], at / "max_batch",
               fmt::format("{:g} is below init_batch {:g} (the range is upside down)", s.max_batch, s.init_batch));
  s.source = util::get_string(e["source"], at / "source");
  if (s.source.empty()) util::fail(e["source"], at / "source", "say where the figures come from");
  const auto& list = e["noise_scale"];
  if (!list.IsSequence() || list.size() == 0)
    util::fail(list, at / "noise_scale", "needs a list of [progress, noise scale] pairs, progress in [0, 1]");
  for (std::size_t i = 0; i < list.size(); ++i) {
    util::At pat = at / ("noise_scale[" + std::to_string(i) + "]");
    const auto& pt = list[i];
    if (!pt.IsSequence() || pt.size() != 2) util::fail(pt, pat, "needs [progress, noise scale]");
    const double progress = util::get_real_in(pt[0], pat, 0, 1);
    const double phi = util::get_real_in(pt[1], pat, 0, kMaxNoiseScale);
    if (!s.noise.empty() && progress <= s.noise.back().first)
      util::fail(pt[0], pat, fmt::format("progress {:g} does not follow {:g} (ascending, each once)", progress,
                                         s.noise.back().first));
    s.noise.emplace_back(progress, phi);
  }
  return s;
}

ModelCatalog read_catalog(const YAML::Node& root, const std::string& file) {
  util::At at{file, ""};
  util::require_map(root, at);
  util::check_keys(root, {"models", "checkpoint_storage"}, at);
  const auto& list = root["models"];
  if (!list || !list.IsSequence() || list.size() == 0) util::fail(root, at / "models", "needs a list of models");
  std::vector<TrainingModel> models;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& n = list[i];
    util::At mat = at / ("models[" + std::to_string(i) + "]");
    util::require_map(n, mat);
    util::check_keys(n,
                     {"name", "description", "params", "batch", "dtype", "grad_dtype", "flops_per_sample", "efficiency",
                      "samples_per_s", "checkpoint", "statistical_efficiency", "host_gpu_slowdown"},
                     mat);
    TrainingModel m;
    m.line = util::line_of(n);
    if (!n["name"]) util::fail(n, mat / "name", "required key is missing");
    m.name = util::get_string(n["name"], mat / "name");
    for (const auto& prev : models)
      if (prev.name == m.name) util::fail(n["name"], mat / "name", "duplicate model '" + m.name + "'");
    if (n["description"]) m.description = util::get_string(n["description"], mat / "description");
    if (!n["params"]) util::fail(n, mat / "params", "required key is missing");
    m.params = util::get_real_in(n["params"], mat / "params", kMinParams, kMaxParams);
    if (n["batch"]) m.batch = util::get_int_in<int>(n["batch"], mat / "batch", 1, kMaxBatch);
    if (n["dtype"]) m.dtype = read_dtype(n["dtype"], mat / "dtype");
    m.grad_dtype = m.dtype;
    if (n["grad_dtype"]) m.grad_dtype = read_dtype(n["grad_dtype"], mat / "grad_dtype");
    if (n["flops_per_sample"])
      m.flops_per_sample =
          util::get_real_in(n["flops_per_sample"], mat / "flops_per_sample", kMinFlopsPerSample, kMaxFlopsPerSample);
    if (n["efficiency"]) m.efficiency = util::get_real_in(n["efficiency"], mat / "efficiency", kMinEfficiency, 1);
    const auto& t = n["samples_per_s"];
    if (!t || !t.IsMap() || t.size() == 0)
      util::fail(n, mat / "samples_per_s", "needs a map GPU model -> samples/s, e.g. {V100: 1350}");
    for (const auto& kv : t) {
      std::string gpu = util::key_of(kv.first, mat / "samples_per_s");
      m.samples_per_s[gpu] =
          util::get_real_in(kv.second, mat / "samples_per_s" / gpu, kMinSamplesPerSecond, kMaxSamplesPerSecond);
      if (m.first_gpu.empty()) m.first_gpu = gpu;
    }
    if (const auto& c = n["checkpoint"]) {
      util::At ckat = mat / "checkpoint";
      util::check_keys(c, {"interval_s", "bytes_per_param"}, ckat);
      if (!c["interval_s"]) util::fail(c, ckat / "interval_s", "required key is missing (work seconds between saves)");
      m.ckpt_interval_s =
          util::checked_real(util::get_double(c["interval_s"], ckat / "interval_s"),
                             util::FieldContext{file, util::line_of(c["interval_s"]), (ckat / "interval_s").path}, 0.0,
                             util::kMaxInputSeconds);
      m.ckpt_bytes_per_param = default_checkpoint_bytes_per_param(m.dtype);
      if (c["bytes_per_param"])
        m.ckpt_bytes_per_param = util::checked_positive(
            util::get_double(c["bytes_per_param"], ckat / "bytes_per_param"),
            util::FieldContext{file, util::line_of(c["bytes_per_param"]), (ckat / "bytes_per_param").path}, 1e3);
      if (!root["checkpoint_storage"])
        util::fail(c, ckat, "needs checkpoint_storage: {write_gb_s, read_gb_s} at the top of the catalog");
    }
    if (n["host_gpu_slowdown"])
      m.host_gpu_slowdown = util::get_real_in(n["host_gpu_slowdown"], mat / "host_gpu_slowdown", 0, 1);
    if (const auto& e = n["statistical_efficiency"]) m.stat_eff = read_stat_eff(e, mat / "statistical_efficiency");
    models.push_back(std::move(m));
  }
  ModelCatalog cat(std::move(models));
  cat.file = file;
  if (const auto& st = root["checkpoint_storage"]) {
    util::At sat = at / "checkpoint_storage";
    util::check_keys(st, {"write_gb_s", "read_gb_s"}, sat);
    for (const char* key : {"write_gb_s", "read_gb_s"}) {
      if (!st[key]) util::fail(st, sat / key, "required key is missing (GB/s one job sees)");
      const double v = util::checked_positive(util::get_double(st[key], sat / key),
                                              util::FieldContext{file, util::line_of(st[key]), (sat / key).path}, 1e6);
      (std::string(key) == "write_gb_s" ? cat.ckpt_write_gb_s : cat.ckpt_read_gb_s) = v;
    }
  }
  return cat;
}

}  // namespace

ModelCatalog load_model_catalog(const std::string& path) {
  YAML::Node root = util::load_yaml_file(path);
  return util::with_yaml_errors(path, [&] { return read_catalog(root, path); });
}

ModelCatalog load_model_catalog_text(const std::string& text, const std::string& name) {
  YAML::Node root = util::parse_yaml(text, name);
  return util::with_yaml_errors(name, [&] { return read_catalog(root, name); });
}

double gpu_throughput(const TrainingModel& model, const cluster::GpuModel& gpu, const cluster::GpuCatalog& catalog,
                      const CalibrationProfile& profile) {
  if (auto it = model.samples_per_s.find(gpu.name); it != model.samples_per_s.end()) return it->second;
  if (model.flops_per_sample > 0 && model.efficiency > 0) {
    if (auto tf = profile.tflops(gpu.name, model.dtype)) return *tf * 1e12 * model.efficiency / model.flops_per_sample;
  }
  // Scale the first listed figure by the catalog's relative training speed.
  double anchor = model.samples_per_s.at(model.first_gpu);
  double anchor_speed = 1.0;
  if (auto id = catalog.find(model.first_gpu)) anchor_speed = catalog.model(*id).speed;
  return anchor * gpu.speed / anchor_speed;
}

}  // namespace schedlab::perf
