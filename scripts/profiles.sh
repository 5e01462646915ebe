#!/usr/bin/env bash
# profiles.sh ARCH HEADER: write bench/profiles.py's C header of the real
# sandboxes' seccomp filters for ARCH.  Their inputs: podman's default
# profile and capabilities from Debian's containers-common files (pinned
# below, downloaded into the cache, never installed) and the host's
# systemd-analyze for systemd's syscall sets.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: profiles.sh ARCH HEADER}
header=${2:?usage: profiles.sh ARCH HEADER}
check_arch "$arch"

# The profile the numbers are for: another version is another benchmark.
pkg=golang-github-containers-common
version=0.50.1+ds1-4
sha256=39d5c31902c4ce55bd419286946d0b291383169585f1b3509000f6bf57454181

need apt-get apt
need dpkg-deb dpkg
need systemd-analyze systemd
/usr/bin/python3 -c 'import seccomp' 2>/dev/null ||
	die "no libseccomp Python bindings for /usr/bin/python3: run 'make deps' (Debian package python3-seccomp)"

deb=${CACHE}/dl/${pkg}_${version//:/%3a}_all.deb
dir=${CACHE}/dl/${pkg}-${version}
if [ ! -f "$dir/usr/share/containers/seccomp.json" ]; then
	mkdir -p "${CACHE}/dl"
	if [ ! -f "$deb" ]; then
		log "downloading ${pkg}=${version}"
		(cd "${CACHE}/dl" && apt-get download -q "${pkg}=${version}") >&2 ||
			die "cannot download ${pkg} version ${version} (podman's default seccomp profile)"
	fi
	sum=$(sha256sum "$deb" | cut -d' ' -f1)
	if [ "$sum" != "$sha256" ]; then
		rm -f "$deb"
		die "$(basename "$deb"): sha256 $sum is not the pinned $sha256; removed it"
	fi
	rm -rf "$dir"
	dpkg-deb -x "$deb" "$dir" || die "cannot unpack $(basename "$deb")"
fi

tmp=$header.tmp
/usr/bin/python3 "${TOP}/bench/profiles.py" "$arch" \
	"$dir/usr/share/containers/seccomp.json" "$dir/usr/share/containers/containers.conf" \
	>"$tmp" || { rm -f "$tmp"; die "bench/profiles.py failed for $arch"; }
mv "$tmp" "$header"
