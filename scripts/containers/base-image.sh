#!/usr/bin/env bash
# Builds localhost/node:24-bookworm-slim, a stand-in for the official node:24-bookworm-slim (which
# no registry here can serve): Debian bookworm minbase, the pinned Node 24 binary, npm 11, a `node`
# user with uid 1000, and no Python, make or compiler — like the official image.
# The machine's certificate authority is added so that `npm ci` inside a build can reach the
# registry through this machine's proxy; that belongs to this test base only.
set -euo pipefail
tag=localhost/node:24-bookworm-slim
if podman image exists "$tag"; then echo "$tag exists"; exit 0; fi

repo=$(cd "$(dirname "$0")/../.." && pwd)
node_binary="$repo/node_modules/node/bin/node"
[ -x "$node_binary" ] || { echo "run npm ci first: $node_binary is missing" >&2; exit 1; }
mirror=$(grep -rhoE 'https?://[^ ]*debian\.org/debian/?' /etc/apt/sources.list.d/ /etc/apt/sources.list 2>/dev/null | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log"; exit 1; }
rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
tar -C "$work/rootfs" -c . >"$work/rootfs.tar"
cp "$(readlink -f "$node_binary")" "$work/node"
(cd "$work" && npm pack --silent npm@11 >/dev/null && mv npm-*.tgz npm.tgz)
cp /etc/ssl/certs/ca-certificates.crt "$work/ca.crt"

cat >"$work/Containerfile" <<'CONTAINERFILE'
FROM scratch
ADD rootfs.tar /
COPY node /usr/local/bin/node
ADD npm.tgz /usr/local/lib/node_modules/
RUN mv /usr/local/lib/node_modules/package /usr/local/lib/node_modules/npm \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY ca.crt /etc/ssl/certs/test-machine-ca.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/test-machine-ca.crt NPM_CONFIG_CAFILE=/etc/ssl/certs/test-machine-ca.crt
CMD ["node"]
CONTAINERFILE
podman build --network host -q -t "$tag" "$work" >/dev/null
echo "built $tag"
