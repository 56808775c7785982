#!/usr/bin/env python3
"""Compares the outputs of a GPU differential program built against FreeDNN
("ours") and against NVIDIA's cuDNN ("theirs").

Lines look like `<name> tol=<t> st=<status> key=v,v,v ...`; lines starting
with '#' are information only. Lines are matched by name. Words must be equal;
numbers must agree within the line's relative tolerance t:
    |a - b| <= t * max(|a|, |b|, 1)
(so values of order one get an absolute tolerance t). NaN equals only NaN.

A case a library cannot run (no engine for a backend graph) may print
`#noengine <name> ...` instead of its result line: a result line of ours
whose name NVIDIA marks so is skipped (listed, not counted); a result line
of NVIDIA's whose name ours marks so is a failure (NVIDIA runs it, we do not).

Usage: compare.py ours.txt theirs.txt [--report out.txt]
Exit status 0 when every line agrees, 1 otherwise.
"""
import math
import re
import sys

NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?(nan|inf)$", re.I)


def parse(path, noengine=None):
    lines = {}
    order = []
    with open(path) as f:
        for raw in f:
            raw = raw.strip()
            if raw.startswith("#noengine ") and noengine is not None:
                rest = raw[len("#noengine "):].strip()
                noengine[rest.partition(" ")[0]] = rest
                continue
            if not raw or raw.startswith("#"):
                continue
            name, _, rest = raw.partition(" ")
            lines[name] = rest
            order.append(name)
    return lines, order


def tokens(rest):
    """Splits `k=v,v k2=v` into a list of (key, value) atoms."""
    out = []
    for field in rest.split():
        key, eq, vals = field.partition("=")
        if not eq:
            out.append((key, None))
            continue
        for i, v in enumerate(vals.split(",")):
            out.append((f"{key}[{i}]", v))
    return out


def close(a, b, tol):
    fa, fb = float(a), float(b)
    if math.isnan(fa) or math.isnan(fb):
        return math.isnan(fa) and math.isnan(fb)
    if math.isinf(fa) or math.isinf(fb):
        return fa == fb
    return abs(fa - fb) <= tol * max(abs(fa), abs(fb), 1.0)


def compare_line(ours, theirs):
    """Returns None when the lines agree, else a reason."""
    to, tt = tokens(ours), tokens(theirs)
    tol = 0.0
    for k, v in tt:
        if k == "tol[0]":
            tol = float(v)
    if len(to) != len(tt):
        return f"different fields: ours '{ours}' theirs '{theirs}'"
    for (ko, vo), (kt, vt) in zip(to, tt):
        if ko != kt:
            return f"field {ko} vs {kt}"
        if vo == vt:
            continue
        if vo is None or vt is None:
            return f"{ko}: {vo} vs {vt}"
        if NUMBER.match(vo) and NUMBER.match(vt):
            if not close(vo, vt, tol):
                return f"{ko}: ours {vo} theirs {vt} (tol {tol})"
        else:
            return f"{ko}: ours {vo} theirs {vt}"
    return None


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    ours_noengine, theirs_noengine = {}, {}
    ours, order = parse(argv[1], ours_noengine)
    theirs, torder = parse(argv[2], theirs_noengine)
    failures = []
    skipped = []
    for name in torder:
        if name not in ours:
            if name in ours_noengine:
                failures.append(f"{name}: NVIDIA runs it, ours has no engine ({ours_noengine[name]})")
            else:
                failures.append(f"{name}: missing from ours")
            continue
        why = compare_line(ours[name], theirs[name])
        if why:
            failures.append(f"{name}: {why}")
    for name in order:
        if name not in theirs:
            if name in theirs_noengine:
                skipped.append(f"# skipped {name}: NVIDIA has no engine ({theirs_noengine[name]})")
            else:
                failures.append(f"{name}: only in ours")
    total = len(set(order) | set(torder)) - len(skipped)
    summary = f"{total - len(failures)}/{total} lines agree"
    if skipped:
        summary += f" ({len(skipped)} skipped: NVIDIA has no engine)"
    text = "\n".join(skipped + failures + [summary])
    print(text)
    if "--report" in argv:
        with open(argv[argv.index("--report") + 1], "w") as f:
            f.write(text + "\n")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
