// Named arguments from YAML (see named_args_yaml.h).
#include "util/named_args_yaml.h"

namespace schedlab::util {

ArgValue arg_value(const YAML::Node& node, const At& at) {
  ArgValue v;
  v.line = line_of(node);
  if (node.IsScalar()) {
    v.text = node.Scalar();
  } else if (node.IsSequence()) {
    v.shape = ArgValue::Shape::list;
    for (const auto& item : node) v.items.push_back(arg_value(item, at));
  } else if (node.IsMap()) {
    v.shape = ArgValue::Shape::map;
    for (const auto& kv : node) {
      std::string key = key_of(kv.first, at);
      v.entries.emplace_back(key, arg_value(kv.second, at / key));
    }
  } else {
    v.shape = ArgValue::Shape::none;
  }
  return v;
}

NamedArgs read_named_args(const YAML::Node& map, const At& at) {
  require_map(map, at);
  NamedArgs args;
  args.file = at.file;
  args.line = line_of(map);
  for (const auto& kv : map) {
    std::string key = key_of(kv.first, at);
    args.values[key] = arg_value(kv.second, at / key);
  }
  return args;
}

}  // namespace schedlab::util
