# shellcheck shell=bash
# Figures for a paper (issue 27, item 5): `schedlab plot` on a compare, a run and sweeps; each
# figure's titles and axis labels read back from its PDF (tests/e2e/pdf_text.py: the text of
# matplotlib's Type 3 fonts, with the standard library only). Sourced by run_e2e.sh.

PDF_TEXT="python3 tests/e2e/pdf_text.py"
# has_lines NAME FILE LINE...: each LINE is a whole line of FILE.
has_lines() {
  local name=$1 file=$2 line
  shift 2
  for line in "$@"; do
    if ! grep -qxF -- "$line" "$file"; then
      fail "$name" "no line '$line' in the figure's text: $(tr '\n' '|' <"$file" | cut -c1-300)"
      return
    fi
  done
  pass "$name"
}

# --- a compare: JCT CDF, queueing-delay CDF, JCT statistics; utilization per variant ---------
run compare tests/fixtures/scenarios/tiny.yaml -o "$TMP/fig-cmp-folder" -q
run plot "$TMP/fig-cmp-folder"
figures_ok=1
for f in plot plot-utilization; do
  [ -s "$TMP/fig-cmp-folder/$f.png" ] && head -c 4 "$TMP/fig-cmp-folder/$f.pdf" | grep -q '%PDF' || figures_ok=0
done
if [ "$rc" -eq 0 ] && [ "$figures_ok" -eq 1 ]; then
  pass figures_compare_png_pdf
else
  fail figures_compare_png_pdf "exit code $rc, or a figure missing"
fi
$PDF_TEXT "$TMP/fig-cmp-folder/plot.pdf" >"$TMP/fig-cmp.txt" 2>"$TMP/stderr"
# The queueing delay where jobs.csv has it, else the wait before the first start, said so.
if head -1 "$TMP/fig-cmp-folder/ff/jobs.csv" | grep -q queueing_delay_s; then
  delay_title="Queueing delay, CDF per variant"
else
  delay_title="Wait before first start (jobs.csv wait_s), CDF per variant"
fi
# The scenario's name (tiny.yaml's `name:`) as title, not the folder's; the baseline named.
has_lines figures_compare_titles "$TMP/fig-cmp.txt" "tiny-test: 2 variants" "JCT, CDF per variant" "$delay_title" \
  "JCT mean and percentiles (summary.json)" "fraction of finished jobs" "JCT mean" "JCT p50" "JCT p95" "JCT p99" \
  "ff (baseline)" "inc"
if grep -q "^job completion time (\(s\|min\|h\), log scale)$" "$TMP/fig-cmp.txt" &&
  grep -q "^\(queueing delay\|wait before first start\) (\(s\|min\|h\), log scale; linear below 1 s)$" "$TMP/fig-cmp.txt" &&
  ! grep -q "fig-cmp-folder" "$TMP/fig-cmp.txt"; then
  pass figures_compare_log_axes
else
  fail figures_compare_log_axes "axis labels: $(grep -i 'time\|delay\|wait' "$TMP/fig-cmp.txt" | tr '\n' '|')"
fi
# The baseline first: its legend entry comes before the other variant's.
first=$(grep -nxF "ff (baseline)" "$TMP/fig-cmp.txt" | head -1 | cut -d: -f1)
second=$(grep -nxF "inc" "$TMP/fig-cmp.txt" | head -1 | cut -d: -f1)
if [ -n "$first" ] && [ -n "$second" ] && [ "$first" -lt "$second" ]; then pass figures_compare_baseline_first; else
  fail figures_compare_baseline_first "legend lines ${first:-none} and ${second:-none}"; fi
# Utilization: one panel per variant, CPU on its own axis (% of CPUs), not on the GPUs' one.
$PDF_TEXT "$TMP/fig-cmp-folder/plot-utilization.pdf" >"$TMP/fig-util.txt"
has_lines figures_compare_utilization_panels "$TMP/fig-util.txt" "tiny-test: utilization per variant" \
  "ff (baseline)" "inc" "GPU utilization (% of GPUs)" "CPU utilization (% of CPUs)" "hours since trace start"
# -o: the figures under the given name, each named on stdout.
run plot "$TMP/fig-cmp-folder" -o "$TMP/paper.png"
if [ "$rc" -eq 0 ] && [ -s "$TMP/paper-utilization.pdf" ] && grep -qF "$TMP/paper-utilization.png" "$TMP/stdout" &&
  [ ! -e "$TMP/.paper.png.figures" ]; then
  pass figures_compare_out_names_every_figure
else
  fail figures_compare_out_names_every_figure "exit code $rc; $(cat "$TMP/stdout")"
fi

# --- a run: GPUs and CPUs on their own axes, the scenario's name as title ---------------------
run run tests/fixtures/scenarios/tiny.yaml -o "$TMP/fig-run-folder" -q
run plot "$TMP/fig-run-folder"
$PDF_TEXT "$TMP/fig-run-folder/plot.pdf" >"$TMP/fig-run.txt" 2>"$TMP/stderr"
has_lines figures_run_axes "$TMP/fig-run.txt" "tiny-test" "% of GPUs" "% of CPUs" "GPU utilization" \
  "CPU utilization" "jobs (time-averaged)" "hours since trace start"

# --- a sweep over load: offered load on x, no confidence band where seeds change nothing ------
mkdir -p "$TMP/fig-sweep-def"
cat >"$TMP/fig-sweep-def/sweep.yaml" <<YAML
scenario: $PWD/tests/fixtures/scenarios/tiny.yaml
grid:
  scheduler.placement: [first-fit, rack-pack]
  workload.arrival_scale: [0.5, 1.0, 2.0]
seeds: [1, 2]
YAML
run sweep "$TMP/fig-sweep-def/sweep.yaml" -o "$TMP/fig-sweep" -j 2 -q
run plot "$TMP/fig-sweep"
$PDF_TEXT "$TMP/fig-sweep/sweep.pdf" >"$TMP/fig-sweep.txt" 2>"$TMP/stderr"
# A fixed trace: the seeds give one value, so no band, and the title says so.
has_lines figures_sweep_offered_load "$TMP/fig-sweep.txt" "tiny-test" \
  "offered load (GPU-hours asked per GPU-hour of the cluster)" "mean JCT (hours)" "GPU utilization (% of GPUs)" \
  "mean JCT (seeds gave one value: no CI)" "scheduler.placement" "first-fit" "rack-pack"
# The x axis is the offered load summary.json reports (it runs with the load), never the raw scale.
if ! grep -qx "workload.arrival_scale" "$TMP/fig-sweep.txt"; then pass figures_sweep_x_is_not_the_scale; else
  fail figures_sweep_x_is_not_the_scale "the x axis is labelled with the raw key"; fi

# A band whose interval reaches below 0 (as a Student's t interval over few seeds does) is
# clipped at 0: no negative tick on any axis.
mkdir -p "$TMP/fig-band"
echo "schedlab sweep" >"$TMP/fig-band/.schedlab-sweep"
cat >"$TMP/fig-band/sweep-summary.csv" <<CSV
scheduler.placement,workload.arrival_scale,metric,n,mean,sd,ci95_low,ci95_high
best-fit,0.5,jct_mean_s,3,3600,5000,-9000,16000
best-fit,1.0,jct_mean_s,3,1800,4000,-8000,11000
best-fit,0.5,gpu_utilization,3,0.9,0.2,0.5,1.3
best-fit,1.0,gpu_utilization,3,0.5,0.2,0.1,0.9
CSV
run plot "$TMP/fig-band"
$PDF_TEXT "$TMP/fig-band/sweep.pdf" >"$TMP/fig-band.txt" 2>"$TMP/stderr"
if [ "$rc" -eq 0 ] && grep -qxF "mean JCT, mean and 95% CI over seeds" "$TMP/fig-band.txt" &&
  ! grep -q '^-[0-9]' "$TMP/fig-band.txt" && ! grep -qx '1[1-9]0' "$TMP/fig-band.txt"; then
  pass figures_sweep_band_clipped
else
  fail figures_sweep_band_clipped "exit code $rc; ticks: $(grep '^-\?[0-9.]*$' "$TMP/fig-band.txt" | tr '\n' ' ')"
fi
