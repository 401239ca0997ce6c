#include "pools/pools_config.h"

namespace schedlab::pools {

std::int32_t PoolsConfig::find(const std::string& name) const {
  for (std::size_t i = 0; i < pools.size(); ++i)
    if (pools[i].name == name) return static_cast<std::int32_t>(i);
  return -1;
}

}  // namespace schedlab::pools
