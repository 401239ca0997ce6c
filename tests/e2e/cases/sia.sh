# shellcheck shell=bash
# The sia policy (issue 30, item 3; docs/elastic.md "sia"): arguments out of range refused with
# file:line: field:, exit 2 (that it resizes the elastic fixture and reruns byte-identically is
# checked with pollux and afs in pollux.sh). Sourced by run_e2e.sh.
EL=tests/fixtures/scenarios/elastic.yaml
bad_input sia_lambda_n_one "$FIX/sia_bad_lambda.yaml:12: scheduler.args.sia.lambda_n: 1 is out of range" \
  run "$FIX/sia_bad_lambda.yaml"
bad_input sia_lambda_n_validate "$FIX/sia_bad_lambda.yaml:12: scheduler.args.sia.lambda_n: " \
  validate "$FIX/sia_bad_lambda.yaml"
bad_input sia_p_zero "$EL: scheduler.args.sia.p: 0 has no sum form" \
  run "$EL" --set scheduler.policy=sia --set scheduler.args.sia.p=0
bad_input sia_p_above_one "$EL: scheduler.args.sia.p: 2 is out of range" \
  run "$EL" --set scheduler.policy=sia --set scheduler.args.sia.p=2
bad_input sia_lambda_a_negative "$EL: scheduler.args.sia.lambda_a: -0.5 is out of range" \
  run "$EL" --set scheduler.policy=sia --set scheduler.args.sia.lambda_a=-0.5
bad_input sia_penalty_negative "$EL: scheduler.args.sia.restart_penalty_s: -1 is out of range" \
  run "$EL" --set scheduler.policy=sia --set scheduler.args.sia.restart_penalty_s=-1
bad_input sia_nodes_fraction "$EL: scheduler.args.sia.mip_nodes: " \
  run "$EL" --set scheduler.policy=sia --set scheduler.args.sia.mip_nodes=1.5
bad_input sia_unknown_arg "$EL: scheduler.args.sia.lambda: " \
  run "$EL" --set scheduler.policy=sia --set scheduler.args.sia.lambda=2
