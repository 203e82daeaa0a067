#!/usr/bin/env bash
# Proves the README's two commands on a fresh clone with a given npm: `npm ci` prints no
# install-scripts warning, and `npm start` serves the sign-in page.
# Usage: .ci/fresh-install.sh <npm version, e.g. 11 or 12>
set -euo pipefail
npm_version=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill -- -$starter 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

git clone -q "$repo" "$work/stackgate"
cd "$work/stackgate"
npm_cmd=(npx --yes "npm@$npm_version")
"${npm_cmd[@]}" ci --no-audit --no-fund >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
if grep -q "install-scripts" "$work/install.log"; then
  grep "install-scripts" "$work/install.log"
  echo "npm $npm_version: npm ci printed an install-scripts warning" >&2
  exit 1
fi
[ "$(node_modules/.bin/node --version | cut -d. -f1)" = v24 ] || { echo "npm $npm_version: the pinned Node 24 was not installed" >&2; exit 1; }

port=$((20000 + RANDOM % 10000))
export PORT=$port BACKEND_PORT=$((port + 1)) FRONTEND_PORT=$((port + 2)) DATA_DIR="$work/data"
setsid "${npm_cmd[@]}" start >"$work/start.log" 2>&1 &
starter=$!
for _ in $(seq 1 90); do
  if curl -sf "http://127.0.0.1:$port/sign-in" | grep -q "<title>Sign in"; then
    echo "npm $npm_version: fresh clone installed without install-scripts warnings; npm start serves the sign-in page"
    exit 0
  fi
  sleep 2
done
cat "$work/start.log"
echo "npm $npm_version: npm start did not serve the sign-in page within 180 s" >&2
exit 1
