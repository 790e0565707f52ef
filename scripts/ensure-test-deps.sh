#!/usr/bin/env bash
# Runs before `npm test`: the suite uses a real redis-server, real bubblewrap and real git.
# Installs them with apt-get when running as root (CI, containers); otherwise prints the one line that does.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v git >/dev/null 2>&1 || missing+=(git)
# test/security/egress-*: network namespaces with veth pairs (ip), setpriv/unshare/nsenter (util-linux).
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
# Sandbox limit tests: python3 inside the sandbox (syscall attempts), mkfs.ext4 (capped workspace disks), prlimit.
[ -x /usr/bin/python3 ] || missing+=(python3)
# test/security/test-weakening-push: the sandbox lists a fixture's tests with pytest (--collect-only).
/usr/bin/python3 -c "import pytest" >/dev/null 2>&1 || missing+=(python3-pytest)
{ [ -x /usr/sbin/mkfs.ext4 ] || [ -x /sbin/mkfs.ext4 ] || command -v mkfs.ext4 >/dev/null 2>&1; } || missing+=(e2fsprogs)
command -v prlimit >/dev/null 2>&1 || missing+=(util-linux)
# test/faults/clock-skew: a worker process started with its clock shifted (libfaketime).
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
# test/store/redis-tls: a private CA and a server certificate.
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# test/dashboard/: playwright-core drives Debian's headless chromium (its own browser download is not used).
[ -x /usr/bin/chromium ] || missing+=(chromium)
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
