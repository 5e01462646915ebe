#!/usr/bin/env bash
# selftests.sh ARCH OBJ DEST: build the upstream selftests of tests/upstream.tbl
# for ARCH from the kernel source behind OBJ (UAPI headers from its
# "make headers"), statically, into DEST; print one /tests/list line each
# (helpers are built but not listed) and name the ones that print no KTAP in
# DEST/plain.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: selftests.sh ARCH OBJ DEST}
obj=${2:?}
dest=${3:?}
check_arch "$arch"
cc=$(arch_get "$arch" cross)gcc
# initramfs.sh has run "make headers" in OBJ.
eval "kmake=($(cat "$obj/kmake.args"))"
src=${kmake[3]}
[ "${kmake[2]}" = -C ] && [ -d "$src/tools/testing/selftests" ] ||
	die "cannot find the kernel source of $obj"
st=$src/tools/testing/selftests
cache=${OUT}/${arch}/selftests
mkdir -p "$cache" "$dest"
: >"$dest/plain"

# for_arch ARCHES: ARCHES (a list, or "*" for every architecture) has ARCH.
for_arch() { [[ $1 =~ ^[[:space:]]*\*[[:space:]]*$ ]] || [[ " $1 " == *[[:space:]]"$arch"[[:space:]]* ]]; }

sed -e 's/#.*//' "${TOP}/tests/upstream.tbl" |
while IFS='|' read -r name arches sources flags ktap args; do
	name=$(echo $name)
	[ -n "$name" ] || continue
	ktap=$(echo $ktap)
	case $ktap in
	ktap | helper) ;;
	plain) if for_arch "$arches"; then echo "$name" >>"$dest/plain"; fi ;;
	*) die "tests/upstream.tbl: $name: KTAP column must be ktap, plain or helper, not '$ktap'" ;;
	esac
	for_arch "$arches" || continue
	# ONLY may name the program that execs a helper: helpers always go in.
	[ -z "${ONLY:-}" ] || [ "$name" = "$ONLY" ] || [ "$ktap" = helper ] || continue
	bin=$cache/$name
	srcs=()
	stale=
	for s in $sources; do
		srcs+=("$st/${s%%:*}")
		[ "$bin" -nt "$st/${s%%:*}" ] || stale=1
	done
	# Rebuilt when its own row or this script changed, not the whole table.
	row="$(echo $sources)|$(echo $flags)"
	[ "$bin" -nt "$0" ] && [ "$(cat "$bin.row" 2>/dev/null)" = "$row" ] || stale=1
	for f in "${TOP}"/tests/upstream/*.ld; do [ "$bin" -nt "$f" ] || stale=1; done
	if [ -n "$stale" ]; then
		dir=$(dirname "${srcs[0]}")
		# "|| exit" throughout: set -e does not apply inside a "( ) ||".
		# shellcheck disable=SC2086 # FLAGS is a list of words
		(
			cd "$dir" || exit
			build() {
				# -L: where ld finds a -T script named in FLAGS
				"$cc" -static -O2 -w -D_GNU_SOURCE -L"${TOP}/tests/upstream" \
					-isystem "$obj/usr/include" -I"${TOP}/tests/upstream/include" \
					-I"$st" -I. "$@"
			}
			# SOURCE:FLAG[:FLAG...] is compiled on its own, FLAGs last.
			inputs=()
			i=0
			for s in $sources; do
				i=$((i + 1))
				if [[ $s == *:* ]]; then
					own=${s#*:}
					build -c -o "$bin.$i.o" "$st/${s%%:*}" $flags ${own//:/ } || exit
					inputs+=("$bin.$i.o")
				else
					inputs+=("$st/$s")
				fi
			done
			build -o "$bin" "${inputs[@]}" $flags
		) >"$cache/$name.log" 2>&1 ||
			die "upstream selftest $name does not build for $arch:
$(tail -n 15 "$cache/$name.log")"
		printf '%s\n' "$row" >"$bin.row"
	fi
	cp "$bin" "$dest/$name"
	[ "$ktap" != helper ] || continue
	# init runs "NAME PROGRAM ARGS..."
	echo "$name" ${args:+$name $args}
done
