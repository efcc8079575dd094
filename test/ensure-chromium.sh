#!/usr/bin/env bash
# Part of `npm test`: the real-browser test of views (test/interop/views.browser.spec.ts) drives Debian's
# chromium through puppeteer-core, which downloads no browser. Installs the chromium package when it is
# missing and this user may (root with apt-get). CHROMIUM_PATH names another Chromium binary instead.
set -u
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ -z "${CHROMIUM_PATH:-}" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium (Debian package) for the real-browser test of views..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends chromium >/dev/null
  [ -x "$CHROMIUM" ] && exit 0
fi
echo "$CHROMIUM is missing and could not be installed: install the chromium package (or set CHROMIUM_PATH), then run npm test again" >&2
exit 1
