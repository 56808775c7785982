#!/usr/bin/env python3
"""Generate src/api/not_supported.cpp: a weak fallback for every cudnnStatus_t function.

Every function declared in include/*.h that returns cudnnStatus_t gets a weak definition
that reports the call and returns the "not implemented" status chosen by
fdnn::api::not_implemented(). Real implementations elsewhere in the library are strong
symbols and take precedence at link time. Functions with other return types
(cudnnGetVersion, cudnnGetErrorString, ...) are not stubbed.

Usage: scripts/gen_not_supported.py [--include DIR] [--output FILE]
(defaults: include/ and src/api/not_supported.cpp relative to the repository root).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import freednn_headers as fh  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HEADER = """\
// GENERATED FILE - do not edit by hand.
// Regenerate with: python3 scripts/gen_not_supported.py
//
// Weak fallback definitions for every cuDNN API function returning cudnnStatus_t that
// is declared in include/*.h. Each one reports the call through
// fdnn::api::not_implemented(). A real (strong) definition anywhere else in the library
// overrides the fallback at link time. Parameter names are omitted on purpose (unused).

#include "cudnn.h"

#include "api/not_implemented.hpp"

"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include", default=os.path.join(ROOT, "include"))
    ap.add_argument("--output", default=os.path.join(ROOT, "src", "api", "not_supported.cpp"))
    args = ap.parse_args()

    decls = fh.declared_functions(args.include)
    out = [HEADER]
    current = None
    count = 0
    for name, d in decls.items():
        if d["ret"] != "cudnnStatus_t":
            continue
        if d["header"] != current:
            current = d["header"]
            out.append("// ---- %s\n\n" % current)
        types = ", ".join(fh.param_type(p) for p in d["params"]) or "void"
        out.append(
            'extern "C" __attribute__((weak)) cudnnStatus_t CUDNNWINAPI\n'
            "%s(%s) {\n"
            '    return fdnn::api::not_implemented("%s");\n'
            "}\n\n" % (name, types, name)
        )
        count += 1
    text = "".join(out).rstrip("\n") + "\n"

    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %s (%d fallback definitions)" % (os.path.relpath(args.output, ROOT), count))


if __name__ == "__main__":
    main()
