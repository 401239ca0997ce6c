// A copy is handed out once: the caller may change its tree (a scenario's overrides do).
#include "util/parsed_yaml_files.h"

#include "util/yaml_util.h"

namespace schedlab::util {

YAML::Node ParsedYamlFiles::load(const std::string& path) {
  if (!setting_aside_) {
    if (auto it = kept_.find(path); it != kept_.end() && !it->second.empty()) {
      YAML::Node node = it->second.back();
      it->second.pop_back();
      return node;
    }
    return load_yaml_file(path);
  }
  const std::string text = read_config_file(path);
  kept_[path].push_back(parse_yaml(text, path));
  return parse_yaml(text, path);
}

YAML::Node load_yaml_file(const std::string& path, ParsedYamlFiles* files) {
  return files ? files->load(path) : load_yaml_file(path);
}

}  // namespace schedlab::util
