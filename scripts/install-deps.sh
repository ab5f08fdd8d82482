#!/usr/bin/env bash
# Installs every Debian package Talus builds, tests and plots with. Idempotent: does nothing when all are present.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libtbb-dev libsuitesparse-dev catch2
  libcli11-dev libyaml-cpp-dev libhdf5-dev libfclib-dev nlohmann-json3-dev libassimp-dev
  python3 python3-dev python3-matplotlib python3-numpy python3-h5py python3-scipy python3-pytest
  pybind11-dev python3-pybind11
  libopenmpi-dev openmpi-bin
  libbullet-dev  # bench/peer_stack: Bullet beside Talus (issue 10)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
