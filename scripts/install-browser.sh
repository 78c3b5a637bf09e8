#!/usr/bin/env bash
# What the browser tests need from the system: Debian's chromium (Playwright drives it through
# executable_path; `playwright install` cannot download browsers here) and fonts-noto-cjk (tags such as
# `Loss/训练` must render as glyphs, not boxes). Called by `make test` through a stamp target.
#
# Installs with apt-get when something is missing and fails loudly when it cannot: browser tests are part of
# `make test`, never silently skipped.
set -euo pipefail

PACKAGES=(chromium fonts-noto-cjk)

installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
if command -v dpkg-query >/dev/null 2>&1; then
	installed fonts-noto-cjk || missing+=(fonts-noto-cjk)
elif ! fc-list 2>/dev/null | grep -qi 'noto.*cjk'; then
	missing+=(fonts-noto-cjk)
fi
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

fail() {
	echo "error: the browser tests need ${PACKAGES[*]} (missing: ${missing[*]}): $1" >&2
	echo "       install them yourself (apt-get install -y ${PACKAGES[*]}) and rerun make test." >&2
	exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "apt-get is not available on this machine"
if [ "$(id -u)" -eq 0 ]; then
	SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO=(sudo -n)
else
	fail "installing them needs root (or password-less sudo)"
fi

# Wait for another apt/dpkg process (unattended upgrades) instead of failing at once on its lock.
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -q)
echo "installing ${missing[*]} with apt-get (once; the browser tests drive Debian's chromium)"
"${APT[@]}" update || fail "apt-get update failed (see above: network, lock or sources)"
"${APT[@]}" install -y "${PACKAGES[@]}" || fail "apt-get install failed (see above)"
[ -x /usr/bin/chromium ] || fail "apt-get finished but /usr/bin/chromium is still missing"
