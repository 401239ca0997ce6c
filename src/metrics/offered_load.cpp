// The offered load (offered_load.h): GPU-hours per distinct request, shared out per model at the end.
#include "metrics/offered_load.h"

#include <fmt/format.h>

#include <algorithm>

namespace schedlab::metrics {

void OfferedLoadTally::add(double submit_s, double gpu_hours, cluster::ModelMask allowed) {
  if (!any_) first_s_ = last_s_ = submit_s;
  any_ = true;
  first_s_ = std::min(first_s_, submit_s);
  last_s_ = std::max(last_s_, submit_s);
  hours_by_mask_[allowed & ~cluster::kHostsWithoutGpus] += gpu_hours;
}

OfferedLoad OfferedLoadTally::result(const cluster::GpuCatalog& catalog,
                                     const std::vector<std::uint64_t>& gpus_by_model) const {
  OfferedLoad out;
  out.span_h = any_ ? (last_s_ - first_s_) / 3600.0 : 0.0;
  std::vector<double> hours(catalog.size(), 0.0);
  for (const auto& [mask, h] : hours_by_mask_) {
    out.gpu_hours += h;
    std::uint64_t present = 0;
    for (cluster::ModelId m = 0; m < catalog.size(); ++m)
      if (mask >> m & 1) present += gpus_by_model[m];
    if (present == 0) continue;  // asks for models the cluster lacks: overall only
    for (cluster::ModelId m = 0; m < catalog.size(); ++m)
      if (mask >> m & 1) hours[m] += h * static_cast<double>(gpus_by_model[m]) / static_cast<double>(present);
  }
  for (auto g : gpus_by_model) out.gpus += g;
  auto load = [&](double h, std::uint64_t gpus) -> std::optional<double> {
    if (out.span_h <= 0 || gpus == 0) return std::nullopt;
    return h / (out.span_h * static_cast<double>(gpus));
  };
  out.overall = load(out.gpu_hours, out.gpus);
  for (cluster::ModelId m = 0; m < catalog.size(); ++m)
    if (gpus_by_model[m] > 0) out.by_model.emplace_back(catalog.model(m).name, load(hours[m], gpus_by_model[m]));
  return out;
}

std::string offered_load_text(const OfferedLoad& load) {
  if (!load.overall)
    return fmt::format("offered load: none to speak of ({:.1f} GPU-hours asked{}; {} GPUs)", load.gpu_hours,
                       load.span_h <= 0 ? ", all submitted at one instant" : "", load.gpus);
  std::string text = fmt::format("offered load {:.2f} ({:.1f} GPU-hours {}asked over {:.1f} h of submissions, on {} GPUs)",
                                 *load.overall, load.gpu_hours,
                                 load.one_gpu_work ? "of one-GPU work, a lower bound at perfect scaling, " : "",
                                 load.span_h, load.gpus);
  if (load.by_model.size() > 1) {
    std::string parts;
    for (const auto& [name, v] : load.by_model)
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", name, v ? fmt::format("{:.2f}", *v) : "-");
    text += "; per GPU model: " + parts;
  }
  return text;
}

std::optional<std::string> overload_text(const OfferedLoad& load) {
  std::string over;
  if (load.overall && *load.overall > 1) over = fmt::format("{:.2f} overall", *load.overall);
  for (const auto& [name, v] : load.by_model)
    if (load.by_model.size() > 1 && v && *v > 1) over += fmt::format("{}{} {:.2f}", over.empty() ? "" : ", ", name, *v);
  if (over.empty()) return std::nullopt;
  return fmt::format(
      "overloaded: the jobs ask for more GPU time than the cluster has ({}); queues grow for as long as jobs "
      "arrive and waits measure the overload, not the policy. Lower the load: raise workload.arrival_scale or "
      "lower workload.load",
      over);
}

}  // namespace schedlab::metrics
