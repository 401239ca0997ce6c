// The list of fuzz targets, in the order of tests/fuzz/targets.txt.
#include "fuzz_targets.h"

namespace schedlab::fuzz {

const std::vector<Target>& targets() {
  static const std::vector<Target> list = {
      {"scenario", fuzz_scenario},
      {"cluster", fuzz_cluster},
      {"gpu_catalog", fuzz_gpu_catalog},
      {"model_catalog", fuzz_model_catalog},
      {"calibration_profile", fuzz_calibration_profile},
      {"nccl_tests_log", fuzz_nccl_tests_log},
      {"trace_native", fuzz_trace_native},
      {"trace_rfold", fuzz_trace_rfold},
      {"trace_philly", fuzz_trace_philly},
      {"trace_pai2020", fuzz_trace_pai2020},
      {"trace_openb", fuzz_trace_openb},
      {"packing_openb", fuzz_packing_openb},
      {"trace_helios", fuzz_trace_helios},
      {"trace_acme", fuzz_trace_acme},
      {"trace_swf", fuzz_trace_swf},
      {"trace_sacct", fuzz_trace_sacct},
      {"trace_auto", fuzz_trace_auto},
      {"failure_trace", fuzz_failure_trace},
      {"gzip", fuzz_gzip},
      {"protocol", fuzz_protocol},
      {"api_body", fuzz_api_body},
      {"journal", fuzz_journal},
      {"external_policy", fuzz_external_policy},
      {"sweep", fuzz_sweep},
  };
  return list;
}

const Target* find_target(std::string_view name) {
  for (const auto& t : targets())
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace schedlab::fuzz
