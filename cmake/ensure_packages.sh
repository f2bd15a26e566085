#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Installs the Debian packages named on the command line that this machine lacks (apt-get, through sudo
# unless root); does nothing when all are there. Shared by test/run.sh, bench/run.sh and doc/render.sh,
# so that a fresh Debian 12 machine needs nothing installed by hand.
# Usage: bash cmake/ensure_packages.sh PACKAGE...
set -euo pipefail

missing=()
for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
((${#missing[@]})) || exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
