#!/usr/bin/env bash
# Set up a development machine: Debian's Chromium for the report tests (never a browser downloaded by
# Playwright: `playwright install` is not used), then the package with its dev extra.
#
#   scripts/dev-setup.sh            # as root (or with sudo available), from anywhere
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    $SUDO apt-get install -y chromium
fi
/usr/bin/chromium --version
python -m pip install -e '.[dev]'
