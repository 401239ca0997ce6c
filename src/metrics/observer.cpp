// Names of life steps, for event logs.
#include "metrics/observer.h"

namespace schedlab::metrics {

const char* step_name(LifeStep s) {
  switch (s) {
    case LifeStep::start: return "start";
    case LifeStep::restart: return "restart";
    case LifeStep::stop: return "stop";
    case LifeStep::finish: return "finish";
    case LifeStep::fail: return "fail";
  }
  return "?";
}

}  // namespace schedlab::metrics
