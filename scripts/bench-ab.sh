#!/usr/bin/env bash
# Old-against-new timing for the bench scripts (sourced by bench-replay.sh and bench-philly.sh
# when OLD= names a second binary). ab_time LABEL NEW_CMD... -- OLD_CMD... runs the two command
# lines ROUNDS times each (default 5), alternating which goes first, on one core (CORE, default
# 1), and prints the medians of user+sys CPU time and of wall time and the ratio new/old. CPU
# time is the figure to trust on a shared machine; the load average is printed beside it.
ab_median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ab_time() {
  local label=$1; shift
  local new=() old=() side=new
  for a in "$@"; do
    if [ "$a" = -- ]; then side=old; continue; fi
    if [ $side = new ]; then new+=("$a"); else old+=("$a"); fi
  done
  local rounds=${ROUNDS:-5} t; t=$(mktemp)
  local cpu_new=() cpu_old=() wall_new=() wall_old=()
  local load_before; load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  for ((r = 1; r <= rounds; r++)); do
    for who in $( ((r % 2)) && echo "new old" || echo "old new"); do
      if [ $who = new ]; then
        /usr/bin/time -f '%U %S %e' -o "$t" taskset -c "${CORE:-1}" "${new[@]}" >/dev/null 2>&1
      else
        /usr/bin/time -f '%U %S %e' -o "$t" taskset -c "${CORE:-1}" "${old[@]}" >/dev/null 2>&1
      fi
      read -r u s w < <(tail -1 "$t")
      if [ $who = new ]; then cpu_new+=("$(echo "$u + $s" | bc)"); wall_new+=("$w")
      else cpu_old+=("$(echo "$u + $s" | bc)"); wall_old+=("$w"); fi
    done
  done
  rm -f "$t"
  local cn co wn wo
  cn=$(printf '%s\n' "${cpu_new[@]}" | ab_median); co=$(printf '%s\n' "${cpu_old[@]}" | ab_median)
  wn=$(printf '%s\n' "${wall_new[@]}" | ab_median); wo=$(printf '%s\n' "${wall_old[@]}" | ab_median)
  printf '%-21s cpu (user+sys) median new %.2f s old %.2f s ratio x%.3f | wall median new %.2f s old %.2f s ratio x%.3f | %d rounds, load %s -> %s\n' \
    "$label" "$cn" "$co" "$(echo "$cn / $co" | bc -l)" "$wn" "$wo" "$(echo "$wn / $wo" | bc -l)" "$rounds" \
    "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-21s   cpu new: %s | old: %s\n' "" "${cpu_new[*]}" "${cpu_old[*]}"
}
