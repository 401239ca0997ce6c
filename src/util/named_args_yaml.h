// Named arguments from a YAML map: each value with the line yaml-cpp's mark gives it, so that
// the part that reads it can report a located error itself (util/named_args.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include "util/named_args.h"
#include "util/yaml_util.h"

namespace schedlab::util {

// A value as written: a scalar, a list or a map (keys as plain names), nested as deep as it is.
ArgValue arg_value(const YAML::Node& node, const At& at);
// The entries of the map at `at` (anything else is an error at its line).
NamedArgs read_named_args(const YAML::Node& map, const At& at);

}  // namespace schedlab::util
