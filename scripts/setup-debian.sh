#!/usr/bin/env bash
# Install what bench needs on Debian 12 (bookworm). Run as root (or with sudo
# available); installs only what is missing.
#   scripts/setup-debian.sh        to build and run bench (debian-packages.txt)
#   scripts/setup-debian.sh test   that and the test suite's tools
#                                  (debian-packages-test.txt)
set -euo pipefail
here=$(dirname "$0")
lists=("$here/debian-packages.txt")
case "${1:-run}" in
  run) ;;
  test) lists+=("$here/debian-packages-test.txt") ;;
  *) echo "usage: scripts/setup-debian.sh [run|test]" >&2; exit 2 ;;
esac
mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${lists[@]}")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
