// `schedlab completion bash|zsh`: a shell completion script written from the command tree
// itself (subcommands, their subcommands and options), so it never falls behind the CLI.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/error.h"

namespace schedlab::cli {

namespace {

std::vector<std::string> words_of(const CLI::App& app) {
  std::vector<std::string> words;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_name().empty()) words.push_back(sub->get_name());
  for (const CLI::Option* opt : app.get_options()) {
    for (const auto& name : opt->get_lnames()) words.push_back("--" + name);
    for (const auto& name : opt->get_snames()) words.push_back("-" + name);
  }
  return words;
}

// One `case` arm per command path ("run", "sweep collect", ...): the words that may follow it.
void add_cases(const CLI::App& app, const std::string& path, std::string& out) {
  std::string words;
  for (const auto& w : words_of(app)) words += (words.empty() ? "" : " ") + w;
  out += fmt::format("    \"{}\") words=\"{}\" ;;\n", path, words);
  for (const CLI::App* sub : app.get_subcommands({}))
    add_cases(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
}

std::string bash_script(const CLI::App& root) {
  std::string cases;
  add_cases(root, "", cases);
  // The command path is the words typed so far that name subcommands; after it, the words of
  // that path are offered, and file names wherever a word does not start with '-'.
  return fmt::format(R"(# schedlab completion for bash: source <(schedlab completion bash)
_schedlab() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} path="" words i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${{COMP_WORDS[i]}}
    case "$w" in -*) continue ;; esac
    case " $(_schedlab_words "$path") " in *" $w "*) path=${{path:+$path }}$w ;; esac
  done
  words=$(_schedlab_words "$path")
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  if [[ "$cur" != -* ]]; then COMPREPLY+=($(compgen -f -- "$cur")); fi
}}
_schedlab_words() {{
  local words=""
  case "$1" in
{}    *) ;;
  esac
  echo "$words"
}}
complete -o filenames -F _schedlab schedlab
)",
                     cases);
}

}  // namespace

void add_completion_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("completion",
                                 "Print a shell completion script: source <(schedlab completion bash), or for zsh "
                                 "source <(schedlab completion zsh)");
  auto shell = std::make_shared<std::string>();
  cmd->add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  cmd->callback([&app, shell, &exit_code] {
    const std::string bash = bash_script(app);
    if (*shell == "bash")
      fmt::print("{}", bash);
    else  // zsh runs bash completion functions through bashcompinit
      fmt::print("# schedlab completion for zsh: source <(schedlab completion zsh)\n"
                 "autoload -U +X bashcompinit && bashcompinit\n{}",
                 bash);
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
