// Scheduler parts by name, in one visible list (register_builtin_parts). Unknown names are
// answered with the valid ones. The one registry of the program is built on first use.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sched/parts.h"

namespace schedlab::sched {

template <class Part>
struct PartFactory {
  std::string name;
  std::string help;
  std::function<std::unique_ptr<Part>(const PartArgs&)> make;
};

template <class Part>
class PartList {
 public:
  explicit PartList(std::string kind) : kind_(std::move(kind)) {}
  void add(std::string name, std::string help, std::function<std::unique_ptr<Part>(const PartArgs&)> make) {
    items_.push_back({std::move(name), std::move(help), std::move(make)});
  }
  const std::vector<PartFactory<Part>>& items() const { return items_; }
  const std::string& kind() const { return kind_; }
  std::vector<std::string> names() const;
  bool contains(const std::string& name) const;
  // Throws InputError "unknown <kind> 'x'; did you mean ...? valid: ..." for unknown names.
  std::unique_ptr<Part> make(const std::string& name, const PartArgs& args) const;

 private:
  std::string kind_;
  std::vector<PartFactory<Part>> items_;
};

struct PartRegistry {
  PartList<QueueOrder> queues{"queue order"};
  PartList<Admission> admissions{"admission"};
  PartList<Filter> filters{"filter"};
  PartList<PlacementPolicy> placements{"placement"};
  PartList<Preemption> preemptions{"preemption"};
  PartList<Backfill> backfills{"backfill"};
};

void register_builtin_parts(PartRegistry& registry);
const PartRegistry& builtin_parts();

}  // namespace schedlab::sched
