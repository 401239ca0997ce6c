# shellcheck shell=bash
# `model explain` says where each figure comes from, and the A100 uses its own figures (issue
# 27, item 6). Sourced by run_e2e.sh.
run model explain --model resnet50 --gpus 8 --gpu A100
if [ "$rc" -eq 0 ] && grep -q "beta 203 GB/s" "$TMP/stdout" &&
  grep -q "intra-host beta 203 GB/s: A100 intra_busbw_gbps (configs/gpus.yaml): nccl-tests" "$TMP/stdout" &&
  grep -q "intra-host alpha 0.92 us: datasheet profile, nvlink tier: 8 B allreduce" "$TMP/stdout" &&
  grep -q "host NIC 200 GB/s: A100 nic_gbps" "$TMP/stdout"; then
  pass perf_sources_a100_own_figures
else
  fail perf_sources_a100_own_figures "exit $rc or a source line is missing"
fi
run model explain --model resnet50 --placement 2x8 --gpu H100 --nic-gbps 25
if [ "$rc" -eq 0 ] && grep -q "across hosts beta 46.88 GB/s: bandwidth-optimal bound of the host line 25 GB/s" "$TMP/stdout" &&
  grep -q "host NIC 25 GB/s: --nic-gbps" "$TMP/stdout"; then
  pass perf_sources_host_line
else
  fail perf_sources_host_line "exit $rc or the host-line source is missing"
fi
# A measured profile's tier is named as such, not as the catalog's figure.
printf '%s\n' '# schedlab calibration profile' 'provenance: {source: measured, gpu: "test GPU"}' \
  'tiers:' '  nvlink: {alpha_us: 1.5, beta_gbps: 150}' >"$TMP/ps_profile.yaml"
run model explain --model resnet50 --gpus 8 --gpu A100 --profile "$TMP/ps_profile.yaml"
if [ "$rc" -eq 0 ] && grep -q "intra-host beta 150 GB/s: profile $TMP/ps_profile.yaml (measured, test GPU), nvlink tier" "$TMP/stdout"; then
  pass perf_sources_measured_profile
else
  fail perf_sources_measured_profile "exit $rc"
fi
