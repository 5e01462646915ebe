#!/usr/bin/env bash
# busybox.sh ARCH: make sure Debian's busybox-static for ARCH (the shell and
# tools of "make shell") is in the cache and print the path of its binary.
# The package is downloaded, never installed: the host keeps its own.  Its
# package list is fetched for that download alone, from the host's own Debian
# archive (its apt sources name it) for the host's suite, or the suite
# arch.tbl's debarch names after "@".  FETCH=no only prints the path, or
# fails when the binary is not there.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: busybox.sh ARCH}
check_arch "$arch"
debarch=$(arch_get "$arch" debarch)
suite=
[[ "$debarch" != *@* ]] || { suite=${debarch#*@}; debarch=${debarch%@*}; }
dir=${CACHE}/dl/busybox-static-${debarch}
bin=$dir/bin/busybox
if [ ! -x "$bin" ]; then
	[ "${FETCH:-yes}" != no ] || die "no busybox for $arch in $dir: run 'make deps'"
	need apt-get apt
	need dpkg-deb dpkg
	src=/etc/apt/sources.list.d/debian.sources
	[ -f "$src" ] || die "no $src: cannot tell which Debian archive to fetch busybox-static:$debarch from"
	uri=$(awk '/^URIs:/ { print $2; exit }' "$src")
	[ -n "$suite" ] || suite=$(awk '/^Suites:/ { print $2; exit }' "$src")
	[ -n "$uri" ] && [ -n "$suite" ] || die "$src names no archive or suite"
	mkdir -p "${CACHE}/dl"
	tmp=$(mktemp -d "${CACHE}/dl/busybox.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# A private apt state: the host's lists and sources stay as they are.
	state=$tmp/apt
	mkdir -p "$state/lists/partial" "$state/archives/partial"
	echo "deb [arch=$debarch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
		>"$state/sources.list"
	apt=(-q -o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=-
		-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state"
		-o "APT::Architectures=$debarch" -o Debug::NoLocking=1
		-o APT::Sandbox::User=root)
	log "downloading busybox-static for $debarch ($suite)"
	apt-get update "${apt[@]}" >"$tmp/update.log" 2>&1 ||
		{ cat "$tmp/update.log" >&2; die "cannot fetch $suite's package list for $debarch"; }
	(cd "$tmp" && apt-get download "${apt[@]}" "busybox-static:$debarch") >"$tmp/download.log" 2>&1 ||
		{ cat "$tmp/download.log" >&2
		  die "cannot download busybox-static for $debarch (Debian package busybox-static:$debarch, $suite)"; }
	dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/x" ||
		die "cannot unpack $(basename "$tmp"/busybox-static_*.deb)"
	# Debian 13 keeps it in /usr/bin (merged /usr), 12 in /bin.
	found=
	for f in "$tmp/x/bin/busybox" "$tmp/x/usr/bin/busybox"; do
		[ -x "$f" ] && found=$f && break
	done
	[ -n "$found" ] || die "busybox-static for $debarch has no bin/busybox"
	rm -rf "$dir"
	mkdir -p "$dir/bin"
	mv "$found" "$bin"
	printf '%s\n' "$(dpkg-deb -f "$tmp"/busybox-static_*.deb Version)" >"$dir/version"
fi
echo "$bin"
