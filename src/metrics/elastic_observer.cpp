// Elastic jobs' resizes and GPU-time by size.
#include "metrics/elastic_observer.h"

#include <fmt/format.h>

namespace schedlab::metrics {

void ElasticObserver::on_run_end(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time start,
                                 engine::Time now, bool /*job_done*/) {
  if (!job.elastic()) return;
  auto& j = jobs_[job.id];
  j.min = job.min_gpus;
  j.max = job.max_gpus;
  const auto gpus = tasks.gpus();
  j.gpu_us[gpus] += static_cast<double>(gpus) * static_cast<double>(now - start);
}

void ElasticObserver::on_life(const LifeEvent& e) {
  if (!e.job->elastic()) return;
  auto& j = jobs_[e.job->id];
  j.min = e.job->min_gpus;
  j.max = e.job->max_gpus;
  j.resizes = e.life->resizes;
  j.resize_lost_us = e.life->resize_lost_us;
}

void ElasticObserver::write_csv(std::ostream& out) const {
  out << "id,min_gpus,max_gpus,resizes,resize_lost_s,gpu_s_by_size\n";
  for (const auto& [id, j] : jobs_) {
    std::string sizes;
    for (const auto& [n, us] : j.gpu_us) sizes += fmt::format("{}{}:{:.3f}", sizes.empty() ? "" : ";", n, us / 1e6);
    out << fmt::format("{},{},{},{},{:.3f},{}\n", id, j.min, j.max, j.resizes, j.resize_lost_us / 1e6, sizes);
  }
}

}  // namespace schedlab::metrics
