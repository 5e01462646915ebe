# Shared helpers for the harness scripts.  Sourced, never run.
# shellcheck shell=bash

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Downloads, the base git repository, kernel sources and objects live outside
# the work tree so that clones (and CI) reuse them; results stay in out/.
CACHE=${CACHE:-${HOME}/.cache/entry-lab}
OUT=${OUT:-${TOP}/out}
# shellcheck source=../base.conf
. "${TOP}/base.conf"
BASE_GIT=${CACHE}/base.git
BASE_REF=refs/tags/base
TREE=${TREE:-${TOP}/linux}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# arch_get ARCH FIELD: one cell of arch.tbl.
arch_get() {
	local arch=$1 field=$2 v
	v=$(awk -v a="$arch" -v f="$field" '
		/^# arch / { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
		!/^#/ && NF && $1 == a { print $(col[f]); exit }' "${TOP}/arch.tbl")
	[ -n "$v" ] || die "arch.tbl has no field '$field' for '$arch'"
	printf '%s\n' "$v"
}

arch_list() { awk '!/^#/ && NF { print $1 }' "${TOP}/arch.tbl"; }

# check_arch ARCH: reject anything arch.tbl does not describe.
check_arch() {
	local a
	for a in $(arch_list); do
		[ "$a" = "$1" ] && return 0
	done
	die "unknown ARCH '$1'; valid: $(arch_list | tr '\n' ' ')all"
}

# need CMD PACKAGE: fail with the package name if a tool is missing.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: run 'make deps' (Debian package $2)"
}

# The series as the ordered list of patch files (comments and blanks ignored).
# SERIES_UPTO=N keeps the first N (bisect-check builds every prefix).
series_files() {
	[ -f "${TOP}/patches/series" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${TOP}/patches/series" |
	head -n "${SERIES_UPTO:-1000000}" |
	while read -r p; do
		[ -f "${TOP}/patches/$p" ] ||
			die "patches/series lists '$p' but patches/$p does not exist"
		printf '%s\n' "${TOP}/patches/$p"
	done
}

# obj_dir ARCH FLAVOUR VARIANT: where build.sh puts that kernel.  TREE_TAG
# names a second source tree and object directories of its own (see
# source.sh), for a build that must not rebuild the usual one's objects.
obj_dir() { echo "${CACHE}/obj/$3${TREE_TAG:+-$TREE_TAG}-$1-$2-${TOOLCHAIN:-llvm}"; }

# kernel_obj ARCH FLAVOUR VARIANT: build that kernel (build.sh) and print its
# object directory; with NOBUILD=1 (test development) the kernel built last,
# or an error when there is none.
kernel_obj() {
	local obj
	if [ -z "${NOBUILD:-}" ]; then
		"${TOP}/scripts/build.sh" "$@"
		return
	fi
	obj=$(obj_dir "$@")
	[ -f "$obj/$(arch_get "$1" image)" ] ||
		die "no $1 kernel built in $obj yet: run 'make build ARCH=$1' first"
	echo "$obj"
}

# summarize ARCH: one line of counts from $OUT/ARCH/results.tsv (written by
# judge.py), then each unexpected result.  Sets sum_pass, sum_fail, sum_skip;
# expected failures (XFAIL) count as skipped and are named.
summarize() {
	local res=${OUT}/$1/results.tsv x
	sum_pass=$(grep -c '^PASS' "$res" || true)
	sum_fail=$(grep -c '^FAIL' "$res" || true)
	x=$(grep -c '^XFAIL' "$res" || true)
	sum_skip=$(( $(grep -c '^SKIP' "$res" || true) + x ))
	printf '  %-8s %4d passed, %d failed, %d skipped (%d of them known failures)\n' \
		"$1" "$sum_pass" "$sum_fail" "$sum_skip" "$x"
	awk -F'\t' '$1 == "FAIL" { printf "      FAIL %s%s\n", $3, ($4 != "" ? "  [" $4 "]" : "") }' "$res"
}

# Fixed identity and dates make the commits the harness creates reproducible.
git_fixed() {
	GIT_AUTHOR_NAME=entry-lab GIT_AUTHOR_EMAIL=entry-lab@localhost \
	GIT_COMMITTER_NAME=entry-lab GIT_COMMITTER_EMAIL=entry-lab@localhost \
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' \
	GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' git "$@"
}

# patch_paths PATCH...: the paths the patches change, old and new names.
patch_paths() {
	[ "$#" -gt 0 ] || return 0
	sed -n 's,^diff --git a/\([^ ]*\) b/\([^ ]*\)$,\1\n\2,p' "$@" | sort -u
}

# kbuild_cond MAKEFILE OBJ: "y", or the CONFIG_ option whose obj-$(...)
# line lists OBJ in that Makefile; nothing when no obj-/lib- line does.
# (awk reads to the end: an early exit would kill sed with SIGPIPE.)
kbuild_cond() {
	sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$1" | awk -v o="$2" '
		!c && $1 ~ /^(obj|lib)-/ && ($2 == "+=" || $2 == ":=" || $2 == "=") {
			for (i = 3; i <= NF; i++) if ($i == o) {
				c = $1; sub(/^(obj|lib)-/, "", c); gsub(/[$()]/, "", c)
				break } }
		END { if (c) print c }'
}

# series_objects SRC OBJ KARCH: the kbuild targets that compile the code
# the series touches and its closest users, for the config in OBJ/.config
# of the source in SRC (any prefix of the series): the directories of the
# generic entry code, of the series' KUnit suites and of the architecture's
# own files that the series changes; each other C file the whole series
# changes; and the architecture's files that include the generic entry
# headers.  A file only where its Makefile builds it in that config.
series_objects() {
	local src=$1 obj=$2 karch=$3 f mk cond
	local dirs=(kernel/entry/ lib/tests/) files=()
	# Every file of the whole series, not only of this prefix: a file a
	# later patch changes may use what an earlier one changes.
	while read -r f; do
		case $f in
		kernel/entry/*|lib/tests/*) ;;
		arch/"$karch"/kernel/*) dirs+=("arch/$karch/kernel/") ;;
		arch/*) ;;
		*.c) files+=("$f") ;;
		esac
	done < <(patch_paths $(SERIES_UPTO='' series_files))
	while read -r f; do
		files+=("$f")
	done < <(cd "$src" && grep -rlE '<linux/(irq-)?entry-common\.h>' "arch/$karch" --include='*.c')
	for f in $(printf '%s\n' "${dirs[@]}" | sort -u); do
		[ ! -f "$src/${f}Makefile" ] || echo "$f"
	done
	for f in $(printf '%s\n' "${files[@]}" | sort -u); do
		[ -f "$src/$f" ] || continue
		case $f in
		arch/"$karch"/kernel/*)
			[[ " ${dirs[*]} " != *" arch/$karch/kernel/ "* ]] || continue ;;
		esac
		mk=$src/$(dirname "$f")/Makefile
		[ -f "$mk" ] || continue
		cond=$(kbuild_cond "$mk" "$(basename "${f%.c}").o")
		[ -n "$cond" ] || continue
		[ "$cond" = y ] || grep -qx "$cond=y" "$obj/.config" || continue
		echo "${f%.c}.o"
	done
}
