#!/usr/bin/env bash
# Install every Debian package the project needs and fetch make shell's
# busybox; silent when all are there.  'cross' adds make bisect-check's
# cross compilers.
. "$(dirname "$0")/lib.sh"

pkgs=(
	make git python3 bc flex bison cpio xz-utils libelf-dev libssl-dev
	ccache sparse
	# make bisect-check's s390 objects: clang-16 compiles, binutils assembles.
	binutils-s390x-linux-gnu
	clang-16 lld-16 llvm-16
	gcc
	# make bench's real sandbox filters (scripts/profiles.sh).
	python3-seccomp systemd
)
# Each guest architecture's QEMU, compilers and C libraries (arch.tbl).  The
# 32-bit ones: ia32 with gcc -m32 (gcc-12-multilib, not gcc-multilib, which
# conflicts with the cross compilers), AArch32 with clang-16 on the armhf
# cross libc.
for arch in $(arch_list); do
	IFS=, read -r -a p <<<"$(arch_get "$arch" pkgs)"
	pkgs+=("${p[@]}")
done
# 'deps.sh cross' (make bisect-check): the compilers of cross.tbl's other
# rows too (its gcc rows, and loongarch's LLVM 19).
[ "${1:-}" = cross ] &&
	pkgs+=(gcc-arm-linux-gnueabihf gcc-mips-linux-gnu gcc-powerpc64le-linux-gnu
		clang-19 lld-19 llvm-19)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ "${#missing[@]}" != 0 ]; then
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -q >/dev/null ||
		die "apt-get update failed; cannot install: ${missing[*]}"
	$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install failed for: ${missing[*]}"
fi

# make shell's busybox for each guest architecture: downloaded into the
# cache, not installed (one of them is not the host's architecture).
for arch in $(arch_list); do
	"${TOP}/scripts/busybox.sh" "$arch" >/dev/null
done
