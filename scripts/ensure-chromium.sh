#!/usr/bin/env bash
# Makes sure a Chromium for the explorer's headless-browser tests is present:
# $STOCKNODE_CHROMIUM, or Debian's chromium, installed when missing.
set -euo pipefail
if [ -n "${STOCKNODE_CHROMIUM:-}" ] && [ -x "$STOCKNODE_CHROMIUM" ]; then
  exit 0
fi
if command -v chromium >/dev/null; then
  exit 0
fi
echo "installing Debian's chromium for the explorer's browser tests" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
