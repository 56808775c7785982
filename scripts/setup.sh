#!/usr/bin/env bash
# Installs what building and testing FreeDNN needs on a fresh Debian machine.
# Only missing packages are installed; a machine that has them all is untouched.
set -euo pipefail
packages=(cmake ninja-build g++ make python3 libgtest-dev libgmock-dev libbenchmark-dev
          libdnnl-dev libopenblas-dev ccache nlohmann-json3-dev
          python3-sklearn)  # the demo's data set: sklearn/datasets/data/digits.csv.gz
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
