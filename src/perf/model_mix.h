// Which training model a trace job (that names none) stands for: a seeded, documented draw
// over weights from `perf.model_mix`, optionally per GPU-count class (docs/perf-model.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "perf/model_catalog.h"
#include "util/named_args.h"
#include "workload/job_spec.h"

namespace schedlab::perf {

class ModelMix {
 public:
  struct GpuClass {
    std::uint64_t min_gpus = 1, max_gpus = UINT64_MAX;  // inclusive
    std::vector<std::pair<std::size_t, double>> weights;  // (catalog index, weight > 0)
  };

  // Every catalog model with weight 1, for all jobs.
  static ModelMix uniform(const ModelCatalog& catalog);
  // `value` is either {name: weight, ...} or {"1": {...}, "2-8": {...}, "9+": {...}} (GPU-count
  // classes; a job in no class is an error at parse time only if classes leave gaps: they must
  // cover 1..∞), or such a map written as a string. Throws InputError(file, line,
  // "perf.model_mix", ...) naming the fix, at the line of the value found wrong.
  static ModelMix parse(const util::ArgValue& value, const ModelCatalog& catalog, const std::string& file);

  // The catalog index for a job: u = splitmix64(seed, job id) in [0,1) picks the model whose
  // cumulative weight (in the order written) first exceeds u × total. Same seed and id, same model.
  std::size_t pick(std::uint64_t seed, const workload::JobSpec& job) const;

  const std::vector<GpuClass>& classes() const { return classes_; }

 private:
  std::vector<GpuClass> classes_;
};

// The documented hash behind pick(): a uniform double in [0,1) from (seed, id).
double mix_uniform(std::uint64_t seed, std::uint64_t id);

}  // namespace schedlab::perf
