#!/usr/bin/env python3
"""A strict reader of Prometheus' text exposition format 0.0.4, for the emulate e2e (GET /metrics).

  usage: prometheus_check.py URL FAMILY[=VALUE]...

Fetches URL (loopback), checks the Content-Type and that the text is valid: metric and label
names, label value escapes, TYPE before a family's samples and only once, each series once,
sample names that belong to their family's type, histograms with increasing le, cumulative
counts ending in le="+Inf", and _count equal to that bucket. Then every FAMILY named must be
there (with FAMILY=VALUE, as one sample without labels of that value). Prints one line: "ok N families, M samples" (exit 0), or what is wrong (exit 1).
Written from the format's description, not from schedlab's writer. Standard library only.
"""
import math
import re
import sys
import urllib.request

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")
NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\Z")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


class Invalid(Exception):
    pass


def value_of(s):
    if s in ("+Inf", "Inf"):
        return math.inf
    if s == "-Inf":
        return -math.inf
    if s == "NaN":
        return math.nan
    if not NUMBER.match(s):
        raise Invalid(f"bad value {s!r}")
    return float(s)


def labels_of(text):
    """'a="x",b="y\\"z"' -> {a: x, b: y"z}; returns (labels, rest after '}')."""
    labels, i = {}, 0
    while True:
        if text[i:i + 1] == "}":
            return labels, text[i + 1:]
        eq = text.find("=", i)
        if eq < 0:
            raise Invalid("a label without '='")
        name = text[i:eq]
        if not LABEL.match(name) or name.startswith("__"):
            raise Invalid(f"bad label name {name!r}")
        if text[eq + 1:eq + 2] != '"':
            raise Invalid(f"label {name}: value not quoted")
        j, value = eq + 2, []
        while True:
            if j >= len(text):
                raise Invalid(f"label {name}: unterminated value")
            c = text[j]
            j += 1
            if c == '"':
                break
            if c == "\\":
                e = text[j:j + 1]
                j += 1
                if e not in ('\\', '"', 'n'):
                    raise Invalid(f"label {name}: bad escape \\{e}")
                value.append("\n" if e == "n" else e)
            else:
                value.append(c)
        if name in labels:
            raise Invalid(f"label {name} twice")
        labels[name] = "".join(value)
        if text[j:j + 1] == ",":
            j += 1
        elif text[j:j + 1] != "}":
            raise Invalid(f"expected ',' or '}}' after label {name}")
        i = j


def family_of(name, families):
    if name in families:
        return name
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and name[:-len(suffix)] in families:
            return name[:-len(suffix)]
    return None


def check_histogram(family, samples):
    buckets, counts, sums = {}, {}, set()
    for name, labels, value in samples:
        key = tuple(sorted((k, v) for k, v in labels.items() if k != "le"))
        if name == family + "_bucket":
            if "le" not in labels:
                raise Invalid(f"{family}_bucket without le")
            buckets.setdefault(key, []).append((value_of(labels["le"]), value))
        elif "le" in labels:
            raise Invalid(f"{name} has an le label")
        elif name == family + "_count":
            counts[key] = value
        else:
            sums.add(key)
    if not buckets:
        raise Invalid(f"{family}: a histogram without buckets")
    for key, bs in buckets.items():
        last_le, last_n = -math.inf, 0
        for le, n in bs:
            if not le > last_le:
                raise Invalid(f"{family}: buckets not in increasing le")
            if n < last_n or n != int(n):
                raise Invalid(f"{family}: buckets not cumulative counts at le={le}")
            last_le, last_n = le, n
        if last_le != math.inf:
            raise Invalid(f"{family}: the last bucket is not le=\"+Inf\"")
        if key not in counts or key not in sums:
            raise Invalid(f"{family}: _count or _sum missing")
        if counts[key] != last_n:
            raise Invalid(f"{family}_count {counts[key]} differs from the +Inf bucket {last_n}")


def parse(text):
    """{family: (type, [(name, labels, value)])}, or raises Invalid naming the line."""
    if text and not text.endswith("\n"):
        raise Invalid("the text does not end with a line feed")
    families, series, with_samples = {}, set(), set()
    for number, line in enumerate(text.split("\n")[:-1], 1):
        try:
            if not line:
                continue
            if line.startswith("# HELP ") or line.startswith("# TYPE "):
                name, _, arg = line[7:].partition(" ")
                if not NAME.match(name):
                    raise Invalid(f"bad metric name {name!r}")
                if line[2] == "T":
                    if arg not in TYPES:
                        raise Invalid(f"unknown type {arg!r}")
                    if families.get(name, [None])[0] is not None:
                        raise Invalid(f"a second TYPE for {name}")
                    if name in with_samples:
                        raise Invalid(f"TYPE of {name} after its samples")
                    families.setdefault(name, [None, []])[0] = arg
                elif not arg:
                    raise Invalid(f"HELP of {name} without text")
                else:
                    families.setdefault(name, [None, []])
                continue
            if line.startswith("#"):
                continue
            m = re.match(r"([^{ ]*)", line)
            name, rest = m.group(1), line[m.end():]
            if not NAME.match(name):
                raise Invalid(f"bad metric name {name!r}")
            labels = {}
            if rest.startswith("{"):
                labels, rest = labels_of(rest[1:])
            if not rest.startswith(" "):
                raise Invalid("no space before the value")
            parts = rest[1:].split(" ")
            if len(parts) > 2 or (len(parts) == 2 and not re.match(r"-?\d+\Z", parts[1])):
                raise Invalid(f"bad value or timestamp {rest[1:]!r}")
            value = value_of(parts[0])
            family = family_of(name, families)
            if family is None or families[family][0] is None:
                raise Invalid(f"{name} before its TYPE")
            kind = families[family][0]
            if kind == "histogram" and name == family:
                raise Invalid(f"{name}: a histogram's samples are _bucket, _sum, _count")
            if kind not in ("histogram", "summary") and name != family:
                raise Invalid(f"{name} does not belong to {family}")
            if kind == "counter" and not value >= 0:
                raise Invalid(f"{name}: a counter below 0")
            key = (name, tuple(sorted(labels.items())))
            if key in series:
                raise Invalid(f"series {name}{labels} twice")
            series.add(key)
            with_samples.add(family)
            families[family][1].append((name, labels, value))
        except Invalid as e:
            raise Invalid(f"line {number}: {e}: {line!r}") from None
    for name, (kind, samples) in families.items():
        if kind is None:
            raise Invalid(f"{name}: HELP without TYPE")
        if kind == "histogram":
            check_histogram(name, samples)
    return families


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2])
    url, wanted = sys.argv[1], sys.argv[2:]
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            ctype = r.headers.get("Content-Type", "")
            text = r.read().decode("utf-8")
    except Exception as e:  # the one line says what went wrong
        print(f"fetch {url}: {e}")
        sys.exit(1)
    if not ctype.startswith("text/plain") or "version=0.0.4" not in ctype:
        print(f"Content-Type {ctype!r}, not text/plain; version=0.0.4")
        sys.exit(1)
    try:
        families = parse(text)
    except Invalid as e:
        print(e)
        sys.exit(1)
    for w in wanted:
        name, _, value = w.partition("=")
        samples = families.get(name, (None, []))[1]
        if not samples:
            print(f"missing: {name}")
            sys.exit(1)
        if value and [(s[1], s[2]) for s in samples] != [({}, float(value))]:
            print(f"{name}: {samples}, expected one sample of {value}")
            sys.exit(1)
    print(f"ok {len(families)} families, {sum(len(s) for _, s in families.values())} samples")


if __name__ == "__main__":
    main()
