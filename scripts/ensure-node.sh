#!/usr/bin/env bash
# Makes sure Node.js >= 20 and npm are present for the client tests (ethers,
# viem); installs Debian's packages when they are missing.
set -euo pipefail
if command -v node >/dev/null && command -v npm >/dev/null; then
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -ge 20 ]; then
    exit 0
  fi
fi
echo "installing Node.js and npm (Debian packages) for the client tests" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
