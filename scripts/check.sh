#!/usr/bin/env bash
# check.sh ARCH...: the review checks on the series.
#   - scripts/checkpatch.pl --strict on every patch, sign-offs and new
#     files (MAINTAINERS) included;
#   - kernel-doc -Wall on every C file and header the series touches,
#     keeping the warnings the base's versions of them do not have;
#   - sparse (C=2) and W=1 on every C file the series touches, per ARCH,
#     keeping the findings on the lines the series adds or changes (the
#     base's own warnings in those files are not the series' doing).
# Prints every finding and fails if there is one.
. "$(dirname "$0")/lib.sh"

[ "$#" -gt 0 ] || die "usage: check.sh ARCH..."
need sparse sparse
patches=$(series_files)
if [ -z "$patches" ]; then
	echo "check: the series is empty; nothing to check"
	exit 0
fi
src=$("${TOP}/scripts/source.sh" series)
findings=0

# As a maintainer runs it on a posting: from the top of an unpatched tree.
# From inside this project's repository it would take a tracked patch for
# a source file and look commit references up in the wrong history, and
# so miss what it reports on a posting (a reference's style).  The base
# has no mainline history: that a referenced commit exists is not checked
# here (UNKNOWN_COMMIT_ID), its style is.
base_src=$("${TOP}/scripts/source.sh" base)
while read -r p; do
	out=$(cd "$base_src" && GIT_DIR=/nonexistent ./scripts/checkpatch.pl \
		--strict -q --ignore UNKNOWN_COMMIT_ID "$p" 2>&1) || true
	if [ -n "$out" ]; then
		echo "checkpatch: $(basename "$p"):"
		printf '%s\n' "$out" | sed 's/^/  /'
		findings=1
	fi
done <<<"$patches"

# kernel-doc -Wall (what W=1 runs on each object's source; here on the
# headers too) on every file the series adds or changes, against the
# base's versions of the same files, compared by message so that code
# moved between files keeps its old warnings: the line filter below misses
# a comment the series leaves alone while changing what it describes (a
# new parameter).
kdoc() { (cd "$1" && shift && ./scripts/kernel-doc -none -Wall "$@" 2>&1) || true; }
kfiles=$(git --git-dir="$BASE_GIT" diff --name-only --diff-filter=AM refs/tags/base refs/entry-lab/series \
	-- '*.c' '*.h' | grep -v '^tools/' || true)
if [ -n "$kfiles" ]; then
	# shellcheck disable=SC2086 # one file name per word
	out=$(awk 'NR == FNR { n[$0]++; next }
		   { m = $0; sub(/^[^:]*:[0-9]+: /, "", m); if (n[m]-- <= 0) print }' \
		<(for f in $kfiles; do [ ! -f "$base_src/$f" ] || kdoc "$base_src" "$f"; done |
		  sed -E 's/^[^:]*:[0-9]+: //') \
		<(kdoc "$src" $kfiles))
	if [ -n "$out" ]; then
		echo "kernel-doc (warnings the base's versions of these files do not have):"
		printf '%s\n' "$out" | sed 's/^/  /'
		findings=1
	fi
fi

# The C files the series touches, as kbuild object targets.
files=$(git --git-dir="$BASE_GIT" diff --name-only refs/tags/base refs/entry-lab/series -- '*.c')
# "FILE FIRST LAST" for every range of lines the series adds or changes.
touched=$(git --git-dir="$BASE_GIT" diff -U0 refs/tags/base refs/entry-lab/series |
	awk '/^\+\+\+ b\// { f = substr($2, 3) }
	     /^@@/ { split($3, r, ","); n = (r[2] == "" ? 1 : r[2]);
		     if (n > 0) print f, substr(r[1], 2), substr(r[1], 2) + n - 1 }')
for arch in "$@"; do
	check_arch "$arch"
	obj=$("${TOP}/scripts/build.sh" "$arch" debug series)
	karch=$(arch_get "$arch" karch)
	eval "kmake=($(cat "$obj/kmake.args"))"
	targets=()
	for f in $files; do
		case $f in arch/*) [[ $f == arch/$karch/* ]] || continue ;; esac
		[ -f "$obj/${f%.c}.o" ] && targets+=("${f%.c}.o")
	done
	[ "${#targets[@]}" -gt 0 ] || continue
	log "sparse and W=1 on ${#targets[@]} file(s) for $arch"
	# Force the rebuild so that the warnings are printed again.
	for t in "${targets[@]}"; do rm -f "$obj/$t"; done
	out=$("${kmake[@]}" C=2 W=1 "${targets[@]}" 2>&1 >/dev/null |
		grep -E 'warning|error' |
		awk -v src="$src/" -v touched="$touched" '
			BEGIN { n = split(touched, t, "\n")
				for (i = 1; i <= n; i++) { split(t[i], x, " "); f[i] = x[1]; a[i] = x[2]; b[i] = x[3] } }
			{ split($0, p, ":"); file = p[1]; sub("^" src, "", file)
			  for (i = 1; i <= n; i++)
				if (file == f[i] && p[2] >= a[i] && p[2] <= b[i]) { print; next } }' || true)
	if [ -n "$out" ]; then
		echo "sparse/W=1 ($arch):"
		printf '%s\n' "$out" | sed 's/^/  /'
		findings=1
	fi
done
[ "$findings" = 0 ] && echo "check: no findings" || die "check found problems (above)"
