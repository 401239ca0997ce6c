# shellcheck shell=bash
# The guarded YAML load, CSV headers and text from input (issue 25: R25, R28, R30, R32, R37):
# sourced by run_e2e.sh, with its helpers (run, bad_input, stderr_has, pass, fail, $TMP, $BIN).
YT=tests/fixtures/yaml_text

# R25: a kilobyte of aliases standing for 10^10 nodes is refused at once, by validate and run.
yt_start=$(date +%s%N)
bad_input yaml_alias_bomb_validate "$YT/alias_bomb.yaml:" validate "$YT/alias_bomb.yaml"
stderr_has yaml_alias_bomb_says "YAML aliases stand for more than 1000000 nodes"
bad_input yaml_alias_bomb_run "$YT/alias_bomb.yaml:" run "$YT/alias_bomb.yaml"
yt_ms=$((($(date +%s%N) - yt_start) / 1000000))
if [ "$yt_ms" -lt 3000 ]; then pass yaml_alias_bomb_fast; else fail yaml_alias_bomb_fast "took $yt_ms ms"; fi

# R30: a key given twice is an error at the second, naming the first; so is a second document.
bad_input yaml_duplicate_key "$YT/duplicate_key.yaml:8: seed: " run "$YT/duplicate_key.yaml"
stderr_has yaml_duplicate_key_names_first "key 'seed' given twice in one map (first at line 2)"
bad_input yaml_second_document "$YT/second_document.yaml:6: " validate "$YT/second_document.yaml"
bad_input yaml_duplicate_key_in_set "--set: " validate "$YT/invalid_utf8_user.yaml" --set 'scheduler={queue: fifo, queue: sjf}'

# R30b: a CSV column given twice, at line 1, naming it.
bad_input csv_duplicate_column "$YT/duplicate_column.csv:1: id: " run "$YT/duplicate_column.yaml"
stderr_has csv_duplicate_column_says "column 'id' appears twice in the header (columns 1 and 16)"

# R28: invalid UTF-8 in YAML is located (validate finds what run would); in a trace row it is
# kept visible as \xNN, and the run, with an external policy reading JSON too, ends well.
bad_input yaml_invalid_utf8_validate "$YT/invalid_utf8_name.yaml:1: name: " validate "$YT/invalid_utf8_name.yaml"
bad_input yaml_invalid_utf8_run "$YT/invalid_utf8_name.yaml:1: name: " run "$YT/invalid_utf8_name.yaml"
stderr_has yaml_invalid_utf8_says "not valid UTF-8: byte 0xff at offset 1"
run trace convert "$YT/invalid_utf8_user.csv" -o "$TMP/yt-utf8.csv"
if [ "$rc" -eq 0 ] && grep -qF ',u\xff\xfe,' "$TMP/yt-utf8.csv"; then
  pass trace_invalid_utf8_user_escaped
else
  fail trace_invalid_utf8_user_escaped "exit code $rc"
fi
run run "$YT/invalid_utf8_user.yaml" -q --out "$TMP/yt-utf8-ext" \
  --scheduler-cmd "python3 tests/fixtures/external/policy.py fifo"
if [ "$rc" -eq 0 ]; then pass trace_invalid_utf8_user_external; else fail trace_invalid_utf8_user_external "exit code $rc"; fi

# R37: a byte order mark before the header is left out; control bytes from a trace row reach
# jobs.csv escaped; a message quoting input shows its control bytes escaped.
run run "$YT/bom_control_bytes.yaml" -q --out "$TMP/yt-bom"
yt_rc=$rc
run trace convert "$YT/bom_control_bytes.csv" -o "$TMP/yt-bom.csv"
if [ "$yt_rc" -eq 0 ] && [ "$rc" -eq 0 ] && grep -qF ',u\x1b[31mred' "$TMP/yt-bom.csv" && ! grep -q $'\e' "$TMP/yt-bom.csv"; then
  pass csv_bom_and_control_bytes
else
  fail csv_bom_and_control_bytes "exit code $rc"
fi
bad_input message_control_bytes "$YT/invalid_utf8_user.yaml: scheduler.placement: " \
  validate "$YT/invalid_utf8_user.yaml" --set $'scheduler.placement=best\e[2Jfit'
if ! grep -q $'\e' "$TMP/stderr" && grep -qF 'best\x1b[2Jfit' "$TMP/stderr"; then
  pass message_control_bytes_escaped
else
  fail message_control_bytes_escaped "raw control bytes on stderr"
fi

# R32: trace convert never writes a newline inside a field, and the native reader reads the
# quoted fields it writes (a user "doe,\njane "x"").
run trace convert "$YT/philly_newline_in_user.json" -t philly -o "$TMP/yt-philly.csv"
yt_rc=$rc
run trace stats "$TMP/yt-philly.csv"
if [ "$yt_rc" -eq 0 ] && [ "$rc" -eq 0 ] && grep -qF '"doe,\x0ajane ""x"""' "$TMP/yt-philly.csv"; then
  pass trace_convert_newline_in_field
else
  fail trace_convert_newline_in_field "convert exit $yt_rc, stats exit $rc"
fi
