#!/usr/bin/env bash
# Makes sure wrk, compare's second load generator, is present: Debian's,
# installed when missing. Prints its path.
set -euo pipefail
if ! command -v wrk >/dev/null; then
  echo "installing Debian's wrk for make compare" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
fi
command -v wrk
