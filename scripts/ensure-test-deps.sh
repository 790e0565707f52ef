#!/usr/bin/env bash
# Runs before `npm test`: the suite uses a real redis-server, real bubblewrap and real git.
# Installs them with apt-get when running as root (CI, containers); otherwise prints the one line that does.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test dependencies: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "the tests need: ${missing[*]} — install with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
