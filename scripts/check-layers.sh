#!/usr/bin/env bash
# Includes point down only: reads every `#include "..."` in src/ and fails on one whose folder
# is above the including file's folder in the layer order of docs/architecture.md (its
# numbered list under "## Layers"; a folder's subfolders are the folder's layer), unless
# docs/architecture.md lists that include as an exception ("- `src/FILE` includes `HEADER`").
#   usage: scripts/check-layers.sh        (from anywhere; exit 0 clean, 1 with one line per
#                                          upward include: file:line, both folders)
# Also fails on a folder of src/ that the list does not name (a new folder gets its place
# first) and on an exception that no longer matches an include (the list stays true).
# An include without a folder ("x.h", "gpu/x.h" from calib/) is the including file's own.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/architecture.md
[ -f "$doc" ] || { echo "check-layers: $doc is missing" >&2; exit 1; }

# Every folder of src/, then every include as file<TAB>line<TAB>header.
folders=$(find src -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
includes=$(grep -rn --include='*.h' --include='*.cpp' --include='*.cu' --include='*.cuh' \
  -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' src |
  sed -E 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1\t\2\t\3/')

awk -F'\t' -v doc="$doc" -v folders="$folders" '
BEGIN {
  # The layer list: "N. `folder/`" lines under "## Layers", until the next "## ".
  n = 0
  while ((getline line < doc) > 0) {
    if (line ~ /^## /) { in_layers = (line ~ /^## Layers/) }
    if (in_layers && match(line, /^[0-9]+\. `[a-z_]+\/`/)) {
      f = substr(line, RSTART, RLENGTH); sub(/^[0-9]+\. `/, "", f); sub(/\/`$/, "", f)
      rank[f] = ++n
    }
    # Exceptions, anywhere in the file: "- `src/FILE` includes `HEADER`".
    if (match(line, /^- `src\/[^`]+` includes `[^`]+`/)) {
      e = substr(line, RSTART, RLENGTH)
      split(e, p, "`")
      exception[p[2] "\t" p[4]] = 1
    }
  }
  if (n == 0) { print "check-layers: no numbered layer list under \"## Layers\" in " doc; bad = 1 }
  nf = split(folders, fl, "\n")
  for (i = 1; i <= nf; i++)
    if (fl[i] != "" && !(fl[i] in rank)) {
      print "check-layers: src/" fl[i] "/ has no place in the layer list of " doc; bad = 1
    }
}
{
  file = $1; header = $3
  split(file, fp, "/"); from = fp[2]
  split(header, hp, "/")
  to = (header ~ /\// && (hp[1] in rank)) ? hp[1] : from
  if (file "\t" header in exception) { used[file "\t" header] = 1; next }
  if ((from in rank) && (to in rank) && rank[to] > rank[from]) {
    print file ":" $2 ": includes \"" header "\": " to "/ (layer " rank[to] ") is above " from "/ (layer " rank[from] ")"
    bad = 1
  }
}
END {
  for (k in exception)
    if (!(k in used)) {
      split(k, kp, "\t")
      print "check-layers: the exception \"" kp[1] " includes " kp[2] "\" in " doc " matches no include: remove it"
      bad = 1
    }
  exit bad
}' <<<"$includes"
