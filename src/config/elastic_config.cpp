// Reading `elastic:`: every key known, every number checked.
#include "config/elastic_config.h"

#include "util/checked.h"
#include "util/error.h"

namespace schedlab::config {

workload::ElasticDefaults read_elastic(const YAML::Node& n, const util::At& at) {
  workload::ElasticDefaults d;
  if (!n) return d;
  util::require_map(n, at);
  util::check_keys(n, {"min_scale", "max_scale", "restart_s"}, at);
  d.line = util::line_of(n);
  if (n["min_scale"]) d.min_scale = util::get_real_in(n["min_scale"], at / "min_scale", 0, 1, /*lo_open=*/true);
  if (n["max_scale"]) d.max_scale = util::get_real_in(n["max_scale"], at / "max_scale", 1, 4096);
  if (const auto& r = n["restart_s"])
    d.restart = util::checked_duration_seconds(util::get_double(r, at / "restart_s"),
                                               util::FieldContext{at.file, util::line_of(r), (at / "restart_s").path});
  return d;
}

}  // namespace schedlab::config
