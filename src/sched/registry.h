// Scheduler parts by name, in one visible list (register_builtin_parts), each kind a
// util/registry.h list. Unknown names are answered with the valid ones. The one registry of the program is built on first use.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sched/parts.h"
#include "util/registry.h"

namespace schedlab::sched {

template <class Part>
using PartFactory = std::function<std::unique_ptr<Part>(const PartArgs&)>;

// A kind of part by name (util/registry.h), built with its args.
template <class Part>
class PartList : public util::Registry<PartFactory<Part>> {
 public:
  using util::Registry<PartFactory<Part>>::Registry;
  // Throws InputError for an unknown name (listing the valid ones) or a bad arg (located).
  std::unique_ptr<Part> make(const std::string& name, const PartArgs& args) const { return this->get(name).make(args); }
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
