// GpuCatalog lookups.
#include "cluster/gpu_catalog.h"

#include <stdexcept>

namespace schedlab::cluster {

GpuCatalog::GpuCatalog(std::vector<GpuModel> models) : models_(std::move(models)) {
  if (models_.size() > kMaxModels) throw std::length_error("a GPU catalog holds at most 63 models");
}

std::optional<ModelId> GpuCatalog::find(std::string_view name) const {
  for (std::size_t i = 0; i < models_.size(); ++i)
    if (models_[i].name == name) return static_cast<ModelId>(i);
  return std::nullopt;
}

std::vector<std::string> GpuCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& m : models_) out.push_back(m.name);
  return out;
}

}  // namespace schedlab::cluster
