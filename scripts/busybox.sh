#!/usr/bin/env bash
# busybox.sh ARCH: make sure Debian's busybox-static for ARCH (the shell and
# tools of "make shell") is in the cache and print the path of its binary.
# The package is downloaded, never installed: the host keeps its own.
# FETCH=no only prints the path, or fails when the binary is not there.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: busybox.sh ARCH}
check_arch "$arch"
debarch=$(arch_get "$arch" debarch)
dir=${CACHE}/dl/busybox-static-${debarch}
bin=$dir/bin/busybox
if [ ! -x "$bin" ]; then
	[ "${FETCH:-yes}" != no ] || die "no busybox for $arch in $dir: run 'make deps'"
	need apt-get apt
	need dpkg-deb dpkg
	mkdir -p "${CACHE}/dl"
	tmp=$(mktemp -d "${CACHE}/dl/busybox.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# The host's apt knows its own architecture only: add the guest's
	# package lists for this download (they stay in apt's cache).
	apt=(-q -o "APT::Architectures=$(dpkg --print-architecture),$debarch")
	log "downloading busybox-static for $debarch"
	if ! (cd "$tmp" && apt-get download "${apt[@]}" "busybox-static:$debarch") >/dev/null 2>&1; then
		sudo=
		[ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get update "${apt[@]}" >/dev/null 2>&1 ||
			die "apt-get update failed: cannot fetch busybox-static for $debarch"
		(cd "$tmp" && apt-get download "${apt[@]}" "busybox-static:$debarch") >&2 ||
			die "cannot download busybox-static for $debarch (Debian package busybox-static:$debarch)"
	fi
	dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/x" ||
		die "cannot unpack $(basename "$tmp"/busybox-static_*.deb)"
	[ -x "$tmp/x/bin/busybox" ] || die "busybox-static for $debarch has no bin/busybox"
	rm -rf "$dir"
	mkdir -p "$dir/bin"
	mv "$tmp/x/bin/busybox" "$bin"
	printf '%s\n' "$(dpkg-deb -f "$tmp"/busybox-static_*.deb Version)" >"$dir/version"
fi
echo "$bin"
