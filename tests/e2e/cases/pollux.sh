# shellcheck shell=bash
# The pollux and afs resizing policies (issue 30, item 3; docs/elastic.md "pollux", "afs"):
# (and optimus's churn guard) arguments out of range refused with file:line: field:, exit 2;
# pollux, afs and sia resize the elastic fixture and rerun byte-identically. Sourced by run_e2e.sh.
EL=tests/fixtures/scenarios/elastic.yaml
bad_input pollux_p_above_one "$FIX/pollux_bad_p.yaml:11: scheduler.args.pollux.p: 2 is out of range" \
  run "$FIX/pollux_bad_p.yaml"
bad_input pollux_p_validate "$FIX/pollux_bad_p.yaml:11: scheduler.args.pollux.p: " validate "$FIX/pollux_bad_p.yaml"
bad_input pollux_p_below_range "$EL: scheduler.args.pollux.p: -11 is out of range" \
  run "$EL" --set scheduler.policy=pollux --set scheduler.args.pollux.p=-11
bad_input pollux_penalty_negative "$EL: scheduler.args.pollux.restart_penalty_s: -1 is out of range" \
  run "$EL" --set scheduler.policy=pollux --set scheduler.args.pollux.restart_penalty_s=-1
bad_input pollux_p_not_a_number "$EL: scheduler.args.pollux.p: " \
  run "$EL" --set scheduler.policy=pollux --set scheduler.args.pollux.p=fair
bad_input pollux_unknown_arg "$EL: scheduler.args.pollux.restart_s: " \
  run "$EL" --set scheduler.policy=pollux --set scheduler.args.pollux.restart_s=30
bad_input pollux_growth_at_its_line "$FIX/pollux_bad_growth.yaml:11: scheduler.args.pollux.growth: must be 0 (off)" \
  run "$FIX/pollux_bad_growth.yaml"
bad_input pollux_growth_below_one "$EL: scheduler.args.pollux.growth: must be 0 (off) or in [1, 1024], got 0.5" \
  run "$EL" --set scheduler.policy=pollux --set scheduler.args.pollux.growth=0.5
bad_input pollux_growth_too_large "$EL: scheduler.args.pollux.growth: 2000 is out of range" \
  run "$EL" --set scheduler.policy=pollux --set scheduler.args.pollux.growth=2000
bad_input pollux_interval_negative "$EL: scheduler.args.pollux.interval_s: -60 is out of range" \
  run "$EL" --set scheduler.policy=pollux --set scheduler.args.pollux.interval_s=-60
bad_input afs_takes_no_args "$EL: scheduler.args.afs.p: " run "$EL" --set scheduler.policy=afs --set scheduler.args.afs.p=1
for policy in pollux afs sia; do
  run run "$EL" --set scheduler.policy=$policy --out "$TMP/el-$policy"
  first_rc=$rc
  run run "$EL" --set scheduler.policy=$policy --out "$TMP/el-$policy-2"
  if [ "$first_rc" -eq 0 ] && [ "$rc" -eq 0 ] &&
    awk -F, 'NR > 1 { r += $4 } END { exit !(r > 0) }' "$TMP/el-$policy/elastic.csv" &&
    diff -q "$TMP/el-$policy/elastic.csv" "$TMP/el-$policy-2/elastic.csv" >/dev/null &&
    diff -q "$TMP/el-$policy/jobs.csv" "$TMP/el-$policy-2/jobs.csv" >/dev/null; then
    pass "elastic_${policy}_resizes_deterministically"
  else
    fail "elastic_${policy}_resizes_deterministically" "exit $first_rc/$rc, no resize, or a rerun differs"
  fi
done
bad_input optimus_min_gain_negative "$EL: scheduler.args.optimus.min_gain_s: -5 is out of range" \
  run "$EL" --set scheduler.policy=optimus --set scheduler.args.optimus.min_gain_s=-5
