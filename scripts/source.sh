#!/usr/bin/env bash
# source.sh VARIANT: prepare the kernel source for a build and print its path.
#   base    the unpatched base
#   series  the base with patches/series applied (to a fresh copy: the
#           developer's work tree in linux/ is never used)
# The source is a git worktree of the base repository; moving it between
# commits touches only the files that differ, so object directories stay
# incremental.
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: source.sh base|series}
case $variant in base|series) ;; *) die "unknown source variant '$variant'" ;; esac

base=$("${TOP}/scripts/base.sh")
export GIT_DIR=$BASE_GIT
commit=$base
if [ "$variant" = series ]; then
	patches=$(series_files)
	if [ -n "$patches" ]; then
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		export GIT_INDEX_FILE=$tmp/index
		git read-tree "$base"
		while read -r p; do
			if ! git apply --cached "$p" 2>"$tmp/err"; then
				die "patch $(basename "$p") does not apply to the base:
$(sed 's/^/  /' "$tmp/err")"
			fi
		done <<<"$patches"
		tree=$(git write-tree)
		commit=$(git_fixed commit-tree "$tree" -p "$base" -m "series")
		unset GIT_INDEX_FILE
	fi
fi
git update-ref "refs/entry-lab/$variant" "$commit"

# make decides by mtime: a tree switched between two series would make each
# object directory rebuild whatever the other touched, hence TREE_TAG.
wt=${CACHE}/src/${variant}${TREE_TAG:+-$TREE_TAG}
unset GIT_DIR
if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$wt"
	git --git-dir="$BASE_GIT" worktree prune
	log "checking out the $variant source in $wt"
	git --git-dir="$BASE_GIT" worktree add -q --detach "$wt" "$commit"
else
	git -C "$wt" reset -q --hard "$commit"
	git -C "$wt" clean -q -fdx
fi
echo "$wt"
