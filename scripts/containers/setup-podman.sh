#!/usr/bin/env bash
# Makes podman work on these machines (Debian 12, root, no systemd, no registry):
# the facts behind each line are in shared/design/CONTAINERS-HERE.md.
set -euo pipefail
packages=(podman runc catatonit debootstrap docker-compose golang-github-containernetworking-plugin-dnsname uidmap)
missing=()
for package in "${packages[@]}"; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# crun refuses the hybrid cgroups here, there is no systemd, and the default rlimits exceed the
# machine's hard limits.
mkdir -p /etc/containers
cat >/etc/containers/containers.conf <<'CONF'
[containers]
default_ulimits = ["nofile=10000:10000", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
# podman looks for its init binary where Debian does not put it.
mkdir -p /usr/libexec/podman
[ -e /usr/libexec/podman/catatonit ] || ln -s /usr/bin/catatonit /usr/libexec/podman/catatonit
podman --version
