# shellcheck shell=bash
# Command-line conventions (issue 28, item 5): a mistyped subcommand named with its likely
# name; `list --format json`; `completion bash|zsh` from the command tree; the man page from
# --help; `cmake --install` puts schedlab and its man page under a prefix. Sourced by run_e2e.sh.

C="$TMP/cli"
mkdir -p "$C"

bad_input cli_unknown_command "unknown command 'rn'; did you mean 'run'?" rn scenarios/quickstart.yaml
run 'r n'
if [ "$rc" -eq 2 ] && grep -qF "unknown command 'r n'" "$TMP/stderr"; then pass cli_unknown_command_quoted; else
  fail cli_unknown_command_quoted "exit code $rc"; fi

run list --format json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
queues = [p["name"] for p in d["parts"]["queue"]]
assert "fifo" in queues and "las" in queues, queues
assert "best-fit" in [p["name"] for p in d["parts"]["placement"]]
assert "native" in [f["name"] for f in d["trace_formats"]]
assert "A100" in [m["name"] for m in d["gpu_models"]["models"]]
' "$TMP/stdout"; then pass cli_list_json; else fail cli_list_json "exit code $rc or lists missing"; fi
run list --format yaml
if [ "$rc" -eq 2 ]; then pass cli_list_format_refused; else fail cli_list_format_refused "exit code $rc"; fi

# Completion: what bash offers after each prefix, as the script computes it.
"$BIN" completion bash >"$C/schedlab.bash"
complete_words() {  # complete_words WORD... : the words offered for the last one
  bash -c 'source "$1"; shift; COMP_WORDS=(schedlab "$@"); COMP_CWORD=$#; _schedlab; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$C/schedlab.bash" "$@"
}
if [ "$(complete_words ru)" = run ]; then pass cli_completion_subcommand; else
  fail cli_completion_subcommand "offered: $(complete_words ru | tr '\n' ' ')"; fi
if complete_words sweep co | grep -qx collect; then pass cli_completion_nested; else
  fail cli_completion_nested "offered: $(complete_words sweep co | tr '\n' ' ')"; fi
if [ "$(complete_words run --se | sort | tr '\n' ' ')" = "--seed --set " ]; then pass cli_completion_options; else
  fail cli_completion_options "offered: $(complete_words run --se | tr '\n' ' ')"; fi
if complete_words run scenarios/quicks | grep -qx scenarios/quickstart.yaml; then pass cli_completion_files; else
  fail cli_completion_files "offered: $(complete_words run scenarios/quicks | tr '\n' ' ')"; fi
run completion zsh
if [ "$rc" -eq 0 ] && grep -q bashcompinit "$TMP/stdout" && grep -q "complete -o filenames -F _schedlab schedlab" "$TMP/stdout"
then pass cli_completion_zsh; else fail cli_completion_zsh "exit code $rc"; fi

# The man page is written next to the binary at each link (when help2man is installed, as
# scripts/setup.sh does), and `cmake --install` puts both under the prefix.
build_dir=$(dirname "$BIN")
if [ -f "$build_dir/CMakeCache.txt" ] && grep -q '^SCHEDLAB_HELP2MAN:FILEPATH=/' "$build_dir/CMakeCache.txt"; then
  if man -l "$build_dir/schedlab.1" 2>/dev/null | grep -q "schedlab - GPU-cluster scheduling simulator"; then
    pass cli_man_page; else fail cli_man_page "$build_dir/schedlab.1 missing or without its NAME line"; fi
  if cmake --install "$build_dir" --prefix "$C/prefix" >/dev/null 2>&1 && [ -x "$C/prefix/bin/schedlab" ] &&
    [ -f "$C/prefix/share/man/man1/schedlab.1" ] && PATH="$C/prefix/bin:$PATH" schedlab --version | grep -q '^schedlab '
  then pass cli_install_prefix; else fail cli_install_prefix "bin/schedlab or share/man/man1/schedlab.1 missing"; fi
else
  echo "skip cli_man_page, cli_install_prefix: this build found no help2man"
fi
