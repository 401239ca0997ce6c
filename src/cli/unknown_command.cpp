// The first word of a command line that names no subcommand: said with its likely name.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/suggest.h"
#include "util/text.h"

namespace schedlab::cli {

std::string unknown_command_message(const CLI::App& app, const std::string& word) {
  if (word.empty() || word[0] == '-') return {};
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == word) return {};
    names.push_back(sub->get_name());
  }
  return util::unknown_name_message("command", util::printable(word), names);
}

}  // namespace schedlab::cli
