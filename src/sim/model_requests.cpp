#include "sim/model_requests.h"

#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::sim {

cluster::ModelMask ModelRequests::of(const workload::JobSpec& job) {
  cluster::ModelMask mask;
  if (auto it = cache_.find(job.gpu_request); it != cache_.end()) {
    mask = it->second;
  } else {
    const std::string_view text = strings_.str(job.gpu_request);
    if (text.empty()) {
      mask = catalog_.all();
    } else {
      mask = 0;
      std::size_t start = 0;
      while (start <= text.size()) {
        std::size_t bar = text.find('|', start);
        const std::string name(text.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
        auto id = catalog_.find(name);
        if (!id)
          throw util::InputError(
              trace_name_, job.line, "gpu_model",
              util::unknown_name_message("GPU model", name, catalog_.names()) + " (add it to configs/gpus.yaml)");
        mask |= cluster::ModelMask{1} << *id;
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
    }
    cache_.emplace(job.gpu_request, mask);
  }
  if (job.min_generation > 0) {
    for (cluster::ModelId m = 0; m < catalog_.size(); ++m)
      if (catalog_.model(m).generation < job.min_generation) mask &= ~(cluster::ModelMask{1} << m);
  }
  return mask;
}

}  // namespace schedlab::sim
