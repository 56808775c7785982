#!/usr/bin/env python3
"""Writes the handwritten-digits data set that scikit-learn ships as a small
binary file for examples/train_digits.

The data set (1797 8x8 images, pixels 0..16, 10 classes; a copy of the UCI
"Optical Recognition of Handwritten Digits" test set) is the file
sklearn/datasets/data/digits.csv.gz of Debian's python3-sklearn or PyPI's
scikit-learn: one line per image, 64 pixel values then the label.

Only the file is read (with the standard library); scikit-learn itself is not
imported. Output format, little endian:
    8 bytes  magic "FDIGITS1"
    uint32   number of images n
    uint32   rows (8), uint32 cols (8)
    n times: rows*cols uint8 pixels (0..16), then one uint8 label (0..9)

Exit status 77 (ctest's "skipped") when the data set is not installed.
"""
import argparse
import csv
import glob
import gzip
import importlib.util
import io
import os
import struct
import subprocess
import sys

RELATIVE = os.path.join("datasets", "data", "digits.csv.gz")


def sklearn_dirs():
    """Candidate sklearn package folders: this interpreter's, the system
    python3's (a pyenv or venv python may not see Debian's dist-packages),
    then the usual install locations."""
    try:
        spec = importlib.util.find_spec("sklearn")
        if spec and spec.submodule_search_locations:
            yield from spec.submodule_search_locations
    except (ImportError, ValueError):
        pass
    probe = "import importlib.util as u; s = u.find_spec('sklearn'); print(s.submodule_search_locations[0] if s else '')"
    for exe in ("/usr/bin/python3",):
        if os.path.exists(exe) and os.path.realpath(exe) != os.path.realpath(sys.executable):
            try:
                out = subprocess.run([exe, "-c", probe], capture_output=True, text=True, timeout=30).stdout.strip()
                if out:
                    yield out
            except (OSError, subprocess.SubprocessError):
                pass
    for pattern in ("/usr/lib/python3/dist-packages/sklearn",
                    "/usr/local/lib/python3*/dist-packages/sklearn",
                    "/usr/local/lib/python3*/site-packages/sklearn",
                    os.path.expanduser("~/.local/lib/python3*/site-packages/sklearn")):
        yield from sorted(glob.glob(pattern))


def find_digits_csv():
    for d in sklearn_dirs():
        path = os.path.join(d, RELATIVE)
        if os.path.isfile(path):
            return path
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="binary file to write")
    parser.add_argument("--csv", help="digits.csv.gz to read (default: found in the installed scikit-learn)")
    args = parser.parse_args()

    path = args.csv or find_digits_csv()
    if not path:
        print("digits_data: scikit-learn's digits.csv.gz not found; install it with "
              "`apt-get install python3-sklearn` or `pip install scikit-learn` "
              "(scripts/setup.sh does the former)", file=sys.stderr)
        return 77

    with gzip.open(path, "rt") as f:
        rows = [line for line in csv.reader(f) if line]
    rows_px, cols_px = 8, 8
    records = io.BytesIO()
    for i, row in enumerate(rows):
        values = [int(float(v)) for v in row]
        if len(values) != rows_px * cols_px + 1:
            raise SystemExit(f"digits_data: {path} line {i + 1}: {len(values)} values, expected 65")
        pixels, label = values[:-1], values[-1]
        if not all(0 <= p <= 16 for p in pixels) or not 0 <= label <= 9:
            raise SystemExit(f"digits_data: {path} line {i + 1}: value out of range")
        records.write(bytes(pixels))
        records.write(bytes([label]))

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"FDIGITS1")
        f.write(struct.pack("<III", len(rows), rows_px, cols_px))
        f.write(records.getvalue())
    os.replace(tmp, args.out)
    print(f"digits_data: {len(rows)} images from {path} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
