# shellcheck shell=bash
# `model explain --gpus A..B`: the scaling curve, and for a model with statistical efficiency the
# batch of highest goodput (issue 30, items 1 and 2; docs/perf-model.md "Goodput"). Sourced by
# run_e2e.sh.
run model explain --model resnet50 --gpus 1..64
if [ "$rc" -eq 0 ] && [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$TMP/stdout")" -eq 7 ] &&
  grep -qF "statistical efficiency at progress 0.50: noise scale 11357 samples, batch 200..12800 (Pollux" "$TMP/stdout" &&
  python3 - "$TMP/stdout" <<'PY'; then
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if re.match(r"^ +\d+ +\d+ ", l)]
gpus = [int(r[0]) for r in rows]
assert gpus == [1, 2, 4, 8, 16, 32, 64], gpus
eff = [float(r[7]) for r in rows]
good = [float(r[8]) for r in rows]
batch = [float(r[5]) for r in rows]
# more GPUs: a larger best batch, a lower statistical efficiency, more goodput (on one rack of H100)
assert all(a <= b for a, b in zip(batch, batch[1:])), batch
assert all(a >= b for a, b in zip(eff, eff[1:])) and eff[0] == 1.0, eff
assert all(a < b for a, b in zip(good, good[1:])), good
PY
  pass model_curve_goodput
else
  fail model_curve_goodput "exit $rc, or the curve's rows are not 1..64 with goodput"
fi
run model explain --model bert-large --gpus 2..16
if [ "$rc" -eq 0 ] && grep -qF "no statistical efficiency for bert-large" "$TMP/stdout" &&
  ! grep -q goodput "$TMP/stdout"; then
  pass model_curve_throughput_only
else
  fail model_curve_throughput_only "exit $rc"
fi
run model explain --model resnet50 --gpus 64..8
if [ "$rc" -eq 2 ] && grep -qF "schedlab: error: --gpus: 64..8 is upside down (write 8..64)" "$TMP/stderr"; then
  pass model_curve_upside_down
else
  fail model_curve_upside_down "exit $rc"
fi
# A model's host_gpu_slowdown (docs/perf-model.md) outside [0, 1]: refused at its line.
bad_input models_bad_host_slowdown "$FIX/models_bad_host_slowdown.yaml:6: models[0].host_gpu_slowdown: 1.5 is out of range" \
  run "$FIX/base.yaml" --set perf.model=placement --set perf.models=models_bad_host_slowdown.yaml
# model explain says when compute includes the host-sharing factor: 8 V100s of one host, 1 + 0.1 x 7.
run model explain --models tests/e2e/fixtures/models_host_slowdown.yaml --model resnet50 --gpu V100 --gpus 8
if [ "$rc" -eq 0 ] && grep -qF "compute x1.7 for sharing a host: host_gpu_slowdown 0.1 x 7 further GPUs" "$TMP/stdout" &&
  grep -qE "compute \(V100\) +- +- +- +- +1\.259" "$TMP/stdout"; then
  pass model_explain_host_slowdown
else
  fail model_explain_host_slowdown "exit $rc"
fi
