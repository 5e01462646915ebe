#!/usr/bin/env bash
# series.sh tree|export|status: the patch-series workflow.
#   tree    create linux/: the base as one commit, each patch of
#           patches/series applied on top as its own commit (git am)
#   export  write linux/'s commits back to patches/ and rewrite the series
#   status  exit 1 and say what linux/ has that patches/ lacks; silent
#           and 0 when they agree (or when there is no linux/)
. "$(dirname "$0")/lib.sh"

cmd=${1:?usage: series.sh tree|export|status}

# Write the tree's commits as patches into DIR; stable bytes for stable
# input: no commit hashes, no tool version, fixed abbreviation and prefixes.
# Copies are detected (-C): code moved into a new file reads as a copy
# with its changes, which is what a reviewer (and checkpatch) should see;
# the histogram diff keeps moved declarations as context rather than as
# lines removed and added again.
format_into() {
	git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false \
		-c diff.mnemonicPrefix=false -c diff.renames=true \
		-c diff.algorithm=histogram \
		format-patch -q -C --zero-commit --no-signature --abbrev=12 \
		-N --subject-prefix=PATCH -o "$1" base..HEAD >/dev/null
	(cd "$1" && ls -- *.patch 2>/dev/null || true) >"$1/series"
}

check_tree() {
	git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null ||
		die "$TREE is not a tree made by 'make tree' (no 'base' tag)"
	git -C "$TREE" merge-base --is-ancestor base HEAD ||
		die "$TREE: HEAD does not descend from the base commit"
}

case $cmd in
tree)
	if [ -d "$TREE" ]; then
		if ! "$0" status >&2; then
			die "$TREE has work that patches/ lacks; export it first (make export) or remove the tree"
		fi
		rm -rf "$TREE"
	fi
	base=$("${TOP}/scripts/base.sh")
	log "creating $TREE"
	git clone -q --shared --no-checkout "$BASE_GIT" "$TREE"
	git -C "$TREE" checkout -q -b series "$base"
	git -C "$TREE" config gc.auto 0
	while read -r p; do
		[ -n "$p" ] || continue
		if ! git -C "$TREE" am -q --keep-cr "$p" 2>"$TREE/.git/am.err"; then
			git -C "$TREE" am --abort 2>/dev/null || true
			die "patch $(basename "$p") does not apply:
$(grep -E 'error|patch failed|does not' "$TREE/.git/am.err" | sed 's/^/  /')
The tree stops before it: fix the patch or the series."
		fi
	done <<<"$(series_files)"
	log "$TREE: $(git -C "$TREE" rev-list --count base..HEAD) patch(es) on the base"
	;;
export)
	[ -d "$TREE" ] || die "no $TREE: run 'make tree' first"
	check_tree
	if [ -n "$(git -C "$TREE" status --porcelain)" ]; then
		git -C "$TREE" status --short | head -n 20 >&2
		die "$TREE has uncommitted changes: commit them (git commit --amend or a fixup), then export"
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	format_into "$tmp"
	while read -r p; do
		[ -n "$p" ] && rm -f "$p"
	done <<<"$(series_files)"
	cp "$tmp"/*.patch "${TOP}/patches/" 2>/dev/null || true
	{
		echo "# Applied in this order on the base named in base.conf."
		echo "# Written by 'make export'; 0000-cover-letter.patch is not applied."
		cat "$tmp/series"
	} >"${TOP}/patches/series"
	log "exported $(wc -l <"$tmp/series") patch(es) to patches/"
	;;
status)
	[ -d "$TREE" ] || exit 0
	check_tree
	bad=0
	dirty=$(git -C "$TREE" status --porcelain)
	if [ -n "$dirty" ]; then
		echo "$TREE has uncommitted edits:"
		printf '%s\n' "$dirty" | head -n 20 | sed 's/^/  /'
		bad=1
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	format_into "$tmp"
	series_files | xargs -r -n1 basename >"$tmp/have"
	if ! cmp -s "$tmp/have" "$tmp/series"; then
		echo "the commits in $TREE and patches/series differ (< patches/, > $TREE):"
		diff "$tmp/have" "$tmp/series" | sed -n 's/^[<>]/  &/p'
		bad=1
	else
		while read -r p; do
			[ -n "$p" ] || continue
			cmp -s "$tmp/$p" "${TOP}/patches/$p" ||
				{ echo "patches/$p differs from its commit in $TREE"; bad=1; }
		done <"$tmp/series"
	fi
	[ "$bad" = 0 ] || echo "run 'make export' to write $TREE into patches/ (or 'make tree' to discard it)"
	exit "$bad"
	;;
*) die "unknown command '$cmd'" ;;
esac
