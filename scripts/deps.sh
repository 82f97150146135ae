#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything sched-rust needs on a Debian 12 (bookworm) host:
#   - apt packages from the machine's own suites (bookworm, bookworm-security),
#     pinned to the versions listed in scripts/deps.apt;
#   - bindgen-cli from the crates registry, pinned, into $CACHE/tools;
#   - virtme-ng from the Python package index, pinned, into $CACHE/venv;
#   - Debian 13's pahole 1.30, downloaded and unpacked into $CACHE, never
#     installed (scripts/pahole.sh): every kernel build gets it as PAHOLE=.
#
# Nothing is taken from another Debian suite here: pulling packages from
# testing/unstable upgrades libc6 and friends of the base system.
#
# Idempotent: each step is skipped when its result is already present.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${CACHE:?CACHE must be set (the Makefile sets it)}
BINDGEN_VERSION=${BINDGEN_VERSION:-0.73.2}
VIRTME_NG_VERSION=${VIRTME_NG_VERSION:-1.42}
CARGO_WEB_VERSION=${CARGO_WEB_VERSION:-1.96.0+dfsg1-1~deb12u2}

log() { printf 'deps: %s\n' "$*"; }

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

install_apt() {
	local want=() missing=() line name ver
	while read -r line; do
		line=${line%%#*}
		[ -n "${line// }" ] || continue
		name=${line%%=*}
		ver=${line#*=}
		want+=("$name=$ver")
		if [ "$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null)" != "install ok installed $ver" ]; then
			missing+=("$name=$ver")
		fi
	done < "$here/deps.apt"

	if [ ${#missing[@]} -eq 0 ]; then
		log "apt: all ${#want[@]} pinned packages present"
		return
	fi
	log "apt: installing ${missing[*]}"
	"${sudo_cmd[@]}" apt-get update -qq
	if ! DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
		# A security update may have replaced a pinned version; the archive keeps
		# only the newest one. Say so loudly and take the suite's candidate.
		log "WARNING: a pinned version is no longer served; installing the candidates of this machine's suites instead"
		DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]%%=*}"
	fi
}

# cargo builds bindgen-cli and the userspace crate. rustup's is fine; on a
# machine without one, Debian's cargo-web (the same 1.96 as rustc-web).
install_cargo() {
	if command -v cargo > /dev/null; then
		log "cargo present: $(cargo --version)"
		return
	fi
	log "apt: no cargo in PATH; installing cargo-web=$CARGO_WEB_VERSION"
	DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
		"cargo-web=$CARGO_WEB_VERSION" ||
		DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends cargo-web
}

install_bindgen() {
	local bin=$CACHE/tools/bin/bindgen
	if [ -x "$bin" ] && "$bin" --version | grep -x "bindgen $BINDGEN_VERSION" >/dev/null; then
		log "bindgen $BINDGEN_VERSION present"
		return
	fi
	log "cargo: installing bindgen-cli $BINDGEN_VERSION"
	mkdir -p "$CACHE/tools"
	cargo install --quiet --locked --root "$CACHE/tools" "bindgen-cli@$BINDGEN_VERSION"
}

install_virtme_ng() {
	local venv=$CACHE/venv
	if [ -x "$venv/bin/vng" ] && "$venv/bin/pip" show virtme-ng 2>/dev/null | grep -x "Version: $VIRTME_NG_VERSION" >/dev/null; then
		log "virtme-ng $VIRTME_NG_VERSION present"
		return
	fi
	log "pip: installing virtme-ng $VIRTME_NG_VERSION into $venv"
	python3 -m venv "$venv"
	"$venv/bin/pip" install --quiet --disable-pip-version-check "virtme-ng==$VIRTME_NG_VERSION"
}

install_apt
install_cargo
install_bindgen
install_virtme_ng
"$here/pahole.sh"
log "done"
