#!/usr/bin/env bash
# Part of `npm test`: the Redis tests start private redis-server instances, so the binary must exist.
# Installs Debian's redis-server when it is missing and this user may (root with apt-get).
set -u
if command -v redis-server >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing redis-server (Debian package) for the Redis tests..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  # The package may start a system-wide instance. The tests never use it (they start private instances
  # on ports of their own), so stop it through the service manager when there is one; otherwise leave
  # it alone. Never match processes by name: that could stop someone else's redis-server.
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl stop redis-server >/dev/null 2>&1 || true
  elif command -v service >/dev/null 2>&1; then
    service redis-server stop >/dev/null 2>&1 || true
  fi
  command -v redis-server >/dev/null 2>&1 && exit 0
fi
echo "redis-server is missing and could not be installed: install the redis-server package, then run npm test again" >&2
exit 1
