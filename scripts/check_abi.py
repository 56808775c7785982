#!/usr/bin/env python3
"""Cross-check our headers against an installed cuDNN 9 (ABI facts only).

Checks, all against the NVIDIA headers cudnn_*_v9.h (or cudnn_*.h) in --cudnn-include:
  1. every enumerator they define exists in ours with the same value;
  2. every numeric #define constant they define exists in ours with the same value, and
     every other macro of theirs (function-like macros, CUDNNWINAPI, ...) exists in ours;
     version numbers are only checked for presence (we implement API level 9.0.0);
  3. sizeof of every struct and enum typedef of theirs, and the offset of every struct
     field, are equal in both;
  4. every function they declare is declared by us, and redeclaring their prototypes
     after including our cudnn.h compiles (C compatible types = same ABI).

Checks 1-3 compile one small C program twice (against theirs, against ours) and
compare its output. Prints every mismatch; exits 1 if there is any.

Usage: scripts/check_abi.py [--cudnn-include DIR] [--cuda-include DIR] [--cc CC]
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import freednn_headers as fh  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Macros whose value legitimately differs (version of the library) or that are guards.
PRESENCE_ONLY = re.compile(
    r"^(CUDNN_(MAJOR|MINOR|PATCHLEVEL|VERSION)|CUDNN_\w+_(MAJOR|MINOR|PATCH)"
    r"|CUDNN_MAX_SM_\w+|CUDNN_MAX_DEVICE_VERSION|CUDNNWINAPI|CUDNN_DEPRECATED\w*)$"
)
GUARD = re.compile(r"^\w+_H_?$")


def their_headers(d):
    files = sorted(glob.glob(os.path.join(d, "cudnn_*_v9.h")))
    if files:
        return {os.path.basename(f).replace("_v9.h", ".h"): f for f in files
                if not os.path.basename(f).startswith("cudnn_v9")}, "_v9"
    files = [f for f in sorted(glob.glob(os.path.join(d, "cudnn_*.h")))]
    return {os.path.basename(f): f for f in files}, ""


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def compile_and_run(cc, src, incs, workdir, tag):
    exe = os.path.join(workdir, "probe_" + tag)
    r = run([cc, "-std=gnu11", "-w", "-o", exe, src] + ["-I" + i for i in incs])
    if r.returncode != 0:
        print("error: probe program does not compile against %s headers:\n%s" % (tag, r.stdout[-4000:]))
        sys.exit(2)
    r = run([exe])
    if r.returncode != 0:
        print("error: probe program failed (%s)" % tag)
        sys.exit(2)
    out = {}
    for line in r.stdout.splitlines():
        key, _, val = line.partition("\t")
        out[key] = val
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cudnn-include", default="/usr/local/cuda/include")
    ap.add_argument("--cuda-include", default="/usr/local/cuda/include")
    ap.add_argument("--include", default=os.path.join(ROOT, "include"))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = ap.parse_args()

    theirs, suffix = their_headers(args.cudnn_include)
    if not theirs:
        print("error: no cuDNN headers in %s" % args.cudnn_include)
        return 2
    their_text = {n: open(p, encoding="utf-8", errors="replace").read() for n, p in theirs.items()}
    our_text = dict(fh.read_headers(args.include))
    all_theirs = "\n".join(their_text.values())
    all_ours = "\n".join(our_text.values())

    problems = []

    # ---- names
    t_enum = fh.parse_enumerators(all_theirs)
    o_enum = fh.parse_enumerators(all_ours)
    t_macro = fh.parse_macros(all_theirs)
    o_macro = fh.parse_macros(all_ours)
    t_struct = fh.parse_structs(all_theirs)
    t_types = sorted(set(t_enum.values()) | set(t_struct))

    for n in sorted(set(t_enum) - set(o_enum)):
        problems.append("missing enumerator %s (%s)" % (n, t_enum[n]))
    value_macros, presence_macros = [], []
    for n, fnlike in sorted(t_macro.items()):
        if GUARD.match(n) and not n.startswith("CUDNN_STATUS"):
            continue
        if fnlike or PRESENCE_ONLY.match(n):
            presence_macros.append(n)
        else:
            value_macros.append(n)

    # ---- probe program: same source, compiled against theirs and against ours
    common_enums = sorted(set(t_enum) & set(o_enum))
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "cudnn.h"', "int main(void) {"]
    for n in common_enums:
        lines.append('    printf("enum %s\\t%%lld\\n", (long long)%s);' % (n, n))
    for n in value_macros:
        lines.append("#ifdef %s" % n)
        lines.append('    printf("macro %s\\t%%.17g\\n", (double)(%s));' % (n, n))
        lines.append("#else")
        lines.append('    printf("macro %s\\tMISSING\\n");' % n)
        lines.append("#endif")
    for n in presence_macros:
        lines.append("#ifdef %s" % n)
        lines.append('    printf("defined %s\\tyes\\n");' % n)
        lines.append("#else")
        lines.append('    printf("defined %s\\tMISSING\\n");' % n)
        lines.append("#endif")
    for t in t_types:
        lines.append('    printf("sizeof %s\\t%%zu\\n", sizeof(%s));' % (t, t))
    for t, fields in sorted(t_struct.items()):
        for fld in fields:
            lines.append('    printf("offsetof %s.%s\\t%%zu\\n", offsetof(%s, %s));' % (t, fld, t, fld))
    lines += ["    return 0;", "}", ""]

    work = tempfile.mkdtemp(prefix="freednn_abi_")
    try:
        theirdir = os.path.join(work, "theirs")
        os.makedirs(theirdir)
        for n, p in theirs.items():
            shutil.copy(p, os.path.join(theirdir, n))
        umbrella = os.path.join(args.cudnn_include, "cudnn%s.h" % suffix)
        shutil.copy(umbrella, os.path.join(theirdir, "cudnn.h"))
        src = os.path.join(work, "probe.c")
        with open(src, "w") as f:
            f.write("\n".join(lines))
        # Make sure the types we compare exist in ours before compiling.
        missing_types = [t for t in t_types if not re.search(r"\b%s\b" % re.escape(t), all_ours)]
        for t in missing_types:
            problems.append("missing type %s" % t)
        if missing_types:
            with open(src, "w") as f:
                f.write("\n".join(l for l in lines if not any(
                    re.search(r"\b%s\b" % re.escape(t), l) for t in missing_types)))
        a = compile_and_run(args.cc, src, [theirdir, args.cuda_include], work, "theirs")
        b = compile_and_run(args.cc, src, [args.include, args.cuda_include], work, "ours")
        for key in a:
            if key.startswith("defined"):
                if b.get(key) != "yes":
                    problems.append("missing macro %s" % key.split()[1])
            elif b.get(key) == "MISSING":
                problems.append("missing macro %s (theirs: %s)" % (key.split()[1], a[key]))
            elif a[key] != b.get(key):
                problems.append("%s: theirs %s, ours %s" % (key, a[key], b.get(key)))

        # ---- functions
        t_fn = {}
        for n in sorted(their_text):
            for d in fh.parse_functions(their_text[n]):
                t_fn[d["name"]] = d
        o_fn = fh.declared_functions(args.include)
        for n in sorted(set(t_fn) - set(o_fn)):
            problems.append("missing function %s" % n)
        red = ['#include "cudnn.h"']
        for n, d in sorted(t_fn.items()):
            if n in o_fn:
                red.append("%s CUDNNWINAPI %s(%s);" % (d["ret"], n, ", ".join(d["params"]) or "void"))
        rsrc = os.path.join(work, "redeclare.c")
        with open(rsrc, "w") as f:
            f.write("\n".join(red) + "\n")
        r = run([args.cc, "-std=gnu11", "-fsyntax-only", "-I" + args.include, "-I" + args.cuda_include, rsrc])
        if r.returncode != 0:
            for m in re.finditer(r"conflicting types for .(\w+).", r.stdout):
                problems.append("prototype differs from cuDNN 9: %s" % m.group(1))
            if "conflicting types" not in r.stdout:
                problems.append("redeclaration check failed to compile:\n" + r.stdout[-3000:])

        print("checked %d enumerators, %d valued macros, %d other macros, %d types, %d functions"
              % (len(t_enum), len(value_macros), len(presence_macros), len(t_types), len(t_fn)))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for p in problems:
        print("ABI: " + p)
    if problems:
        print("%d problem(s)" % len(problems))
        return 1
    print("OK: our headers agree with %s" % args.cudnn_include)
    return 0


if __name__ == "__main__":
    sys.exit(main())
