// The walk over the command tree that finds numeric options declared without the checked conversion.
#include "cli/number_option.h"

namespace schedlab::cli {

namespace {
void collect_unchecked(CLI::App& app, const std::string& path, std::vector<std::string>& out) {
  for (CLI::Option* opt : app.get_options()) {
    // A validator's description may follow the type ("UINT:INT in [200 - 3600000]").
    const std::string full = opt->get_type_name();
    const std::string type = full.substr(0, full.find_first_of(": "));
    if (type != "INT" && type != "UINT" && type != "FLOAT" && type != "NUMBER") continue;
    try {
      opt->get_validator(kCheckedNumberMark);
    } catch (const CLI::OptionNotFound&) {
      out.push_back(path + " " + opt->get_name());
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    collect_unchecked(*sub, path + " " + sub->get_name(), out);
}
}  // namespace

std::vector<std::string> unchecked_number_options(CLI::App& app) {
  std::vector<std::string> out;
  collect_unchecked(app, app.get_name(), out);
  return out;
}

}  // namespace schedlab::cli
