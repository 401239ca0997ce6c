# shellcheck shell=bash
# Compare in one unit per row (issue 27, item 7): a time row in seconds in every column (the
# unit its name says), ratios with three significant digits, and compare-long.csv beside
# compare.csv. Sourced by run_e2e.sh.

# hetero-compare: jct_p50_s is 8.85 hours under first-fit and 830 s under best-fit-easy.
run compare scenarios/hetero-compare.yaml -o "$TMP/cu" -j 2
cp "$TMP/stdout" "$TMP/cu-table.txt"
if [ "$rc" -eq 0 ] && grep -qE '^  jct_p50_s +[0-9]+\.[0-9] s +[0-9]+\.[0-9] s \(x[0-9.]+\)' "$TMP/cu-table.txt" &&
  ! grep -E '^  [a-z0-9_]+_s ' "$TMP/cu-table.txt" | grep -q ' h\b'; then
  pass compare_units_seconds_in_every_column
else
  fail compare_units_seconds_in_every_column "exit code $rc; $(grep jct_p50_s "$TMP/cu-table.txt")"
fi
# Every printed ratio is compare.csv's ratio to three significant digits (a ratio of 0.0002
# prints as x0.000200, not x0.00); compare-long.csv holds compare.csv's values, a row for each
# variant and metric, the variants in order.
if python3 - "$TMP/cu" "$TMP/cu-table.txt" <<'PY'; then
import csv, re, sys
folder, table = sys.argv[1], sys.argv[2]
wide = list(csv.reader(open(f"{folder}/compare.csv")))
header, rows = wide[0], wide[1:]
variants = [h for h in header[1:] if "/" not in h]
n = len(variants)
by_metric = {r[0]: r for r in rows}
checked = 0
for line in open(table):
    m = re.match(r"^  (\w+) ", line)
    if not m or m.group(1) not in by_metric:
        continue
    row = by_metric[m.group(1)]
    ratios = re.findall(r"\(x(-?[0-9.]+)\)", line)
    for i, text in enumerate(ratios):
        want = float(row[1 + n + i])
        got = float(text)
        assert (got == 0 and want == 0) or abs(got - want) <= 0.006 * abs(want), (m.group(1), text, want)
        assert want == 0 or got != 0, (m.group(1), text, want)
        checked += 1
assert checked > 50, checked
long = list(csv.reader(open(f"{folder}/compare-long.csv")))
assert long[0] == ["variant", "metric", "value"], long[0]
assert len(long) - 1 == n * len(rows), (len(long), n, len(rows))
expected = [[v, r[0], r[1 + i]] for i, v in enumerate(variants) for r in rows]
assert long[1:] == expected, "compare-long.csv differs from compare.csv"
PY
  pass compare_units_ratios_and_long_csv
else
  fail compare_units_ratios_and_long_csv "a printed ratio or compare-long.csv disagrees with compare.csv"
fi
# The long table is a name of the compare's own: no variant may take it.
bad_input compare_units_long_csv_name_reserved "--variant: 'compare-long.csv' is one of the compare's own tables" \
  compare tests/fixtures/scenarios/tiny.yaml --variant 'compare-long.csv:scheduler.placement=spread' -o "$TMP/cu-bad"
