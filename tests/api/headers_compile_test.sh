#!/bin/sh
# Compiles every public header on its own and tests/api/header_check.{c,cpp} as C99 and
# C++17 with strict warnings, once without and once with the CUDA include directory.
# Usage: tests/api/headers_compile_test.sh [CUDA_INCLUDE_DIR]   (run from anywhere)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cuda_inc=${1:-/usr/local/cuda/include}
cc=${CC:-cc}
cxx=${CXX:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cflags="-std=c99 -Wall -Wextra -Werror -pedantic"
cxxflags="-std=c++17 -Wall -Wextra -Werror -pedantic"

set -- ""
if [ -d "$cuda_inc" ]; then set -- "" "-I$cuda_inc"; fi
for extra in "$@"; do
    for h in "$root"/include/*.h; do
        name=$(basename "$h")
        printf '#include "%s"\n#include "%s"\nint header_check_dummy;\n' "$name" "$name" > "$tmp/one.c"
        cp "$tmp/one.c" "$tmp/one.cpp"
        $cc $cflags -I"$root/include" $extra -c "$tmp/one.c" -o "$tmp/one.o"
        $cxx $cxxflags -I"$root/include" $extra -c "$tmp/one.cpp" -o "$tmp/one.o"
    done
    $cc $cflags -I"$root/include" $extra -c "$root/tests/api/header_check.c" -o "$tmp/c.o"
    $cxx $cxxflags -I"$root/include" $extra -c "$root/tests/api/header_check.cpp" -o "$tmp/cpp.o"
    echo "headers OK ${extra:-(no CUDA headers)}"
done
