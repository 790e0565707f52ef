#!/usr/bin/env bash
# Sourced by .ci/run (and usable by hand: `source scripts/ensure-node.sh`): puts the Node.js that the project
# declares (.node-version; package.json `engines`) first on PATH for this shell only.
# - When the node on PATH already has that major, nothing changes.
# - Otherwise it takes the official binary from the npm registry's `node-linux-<arch>` package, unpacks it once into
#   a cache folder (OPEN_SWE_NODE_CACHE, default ~/.cache/open-swe; /var/cache/open-swe as root), checks it runs, and prepends its bin/ to PATH.
#   Nothing outside that folder is touched: no system package, no global npm change, no profile edit.
want=$(tr -d '[:space:]' < "$(dirname "${BASH_SOURCE[0]}")/../.node-version")
want_major=${want%%.*}
have_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$have_major" != "$want_major" ]; then
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "ensure-node: no Node.js $want package for $(uname -m); install Node $want_major yourself" >&2; return 1 2>/dev/null || exit 1 ;;
  esac
  # As root the cache is /var/cache/open-swe, not /root/.cache: the suite runs some processes (a non-root worker) under
  # another uid with this node, and /root is closed to them.
  if [ "$(id -u)" = "0" ]; then default_cache=/var/cache/open-swe; else default_cache=${XDG_CACHE_HOME:-$HOME/.cache}/open-swe; fi
  cache=${OPEN_SWE_NODE_CACHE:-$default_cache}
  dir="$cache/node-v$want-linux-$arch"
  if [ ! -x "$dir/bin/node" ] || [ "$("$dir/bin/node" --version 2>/dev/null)" != "v$want" ]; then
    echo "ensure-node: node $(node --version 2>/dev/null || echo none) on PATH; fetching Node.js $want (npm package node-linux-$arch@$want) into $dir" >&2
    mkdir -p "$cache"
    chmod 755 "$cache"
    tmp=$(mktemp -d "$cache/.node-XXXXXX")
    # npm pack checks the tarball against the registry's integrity hash before writing it.
    if ! (cd "$tmp" && npm pack --silent "node-linux-$arch@$want" >/dev/null && tar xzf ./*.tgz); then
      rm -rf "$tmp"
      echo "ensure-node: could not fetch node-linux-$arch@$want from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    fi
    rm -rf "$dir"
    mv "$tmp/package" "$dir"
    rm -rf "$tmp"
  fi
  export PATH="$dir/bin:$PATH"
  hash -r
fi
echo "ensure-node: using node $(node --version) ($(command -v node)), npm $(npm --version)" >&2
