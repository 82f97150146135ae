#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The postable series (docs/series.md), made from this repository's sources.
#
#   series.sh [make]  make series: commit patches/series onto a clean base git
#                     tree, each patch with the new files patches/new-files
#                     assigns to it, check that the result equals what
#                     make apply produces; then one branch per series of
#                     patches/posted (posted/<name>: its patches picked onto
#                     its base, Linux itself or, for the RFC, every other
#                     series), and write each as git format-patch files
#                     numbered from 1 into $SERIES_DIR/out/<name>, with its
#                     cover letter and get_maintainer.pl recipients; the
#                     figures of the messages are filled from and checked
#                     against the results files (scripts/series_figures.py).
#   series.sh am      git am each series of base "base" onto the
#                     "Linux $KERNEL_VERSION" commit alone (series-am-<name>),
#                     then every series in posted order onto one branch
#                     (series-am), and check that each ends at the tree of
#                     make series' branches (make series-check builds it).
#   series.sh bisect  build every commit in turn (make series-bisect): the
#                     series of base "base" on Linux alone, the RFC on top
#                     of the others; one line per commit, then "N passed,
#                     N failed".
#
# The tree is $SERIES_DIR/linux-$KERNEL_VERSION, a git repository of its own: a second,
# pristine extraction of the Debian linux-source-$KERNEL_VERSION tarball committed once as
# "Linux $KERNEL_VERSION" (tag linux-$KERNEL_VERSION) and reused afterwards. Branches: series (made
# from the patches), posted/<name> and posted-stack (the posted series, alone
# and stacked), series-am-<name> and series-am (made from the posted files),
# series-rfc-base (series-am before the RFC). Nothing in it is
# a source: the folders of this repository are.
#
# Environment: CACHE, KERNEL_VERSION, KERNEL_DEB_VERSION (the Makefile sets them);
# SERIES_DIR (default $CACHE/series). Required, each "Name <address>" and
# never taken from git config (see identities() below): SERIES_SIGNOFF (the
# Signed-off-by that replaces each patch's "Signed-off-by: @POSTER@", the
# committer and the cover letters' sender), SERIES_FROM (the author of the
# project's own patches, From: <$SERIES_PROJECT_EMAIL>, default
# sched-rust@localhost; the ported ones keep their authors) and
# SERIES_MAINTAINER (the "M:" of the MAINTAINERS entry the series adds, in
# place of its "M: @POSTER@"); without them make series stops.
# SERIES_FORMAT_ARGS: extra git
# format-patch arguments (e.g. "-v2"). For bisect: SERIES_KOUT (its build folder),
# SERIES_CONFIG (the .config to build each commit with), SERIES_BISECT_FROM
# (a patch number: build from that patch on, in the build order above, after
# a change to it or a later one; the earlier commits are reported as skipped),
# SERIES_FIRST_RUST
# (the number of the first patch allowed to bring Rust into kernel/sched,
# default 0015), SERIES_KMAKE (the command that runs the kernel's make with
# the project's toolchain; the Makefile passes "make series-kmake").
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-$top/.cache}
KERNEL_VERSION=${KERNEL_VERSION:?KERNEL_VERSION must be set (the Makefile sets it)}
KERNEL_DEB_VERSION=${KERNEL_DEB_VERSION:?}
SERIES_DIR=${SERIES_DIR:-$CACHE/series}
tree=$SERIES_DIR/linux-$KERNEL_VERSION
out=$SERIES_DIR/out
base_tag=linux-$KERNEL_VERSION
# The From: of the project's own patches: make series gives them SERIES_FROM.
project_email=${SERIES_PROJECT_EMAIL:-sched-rust@localhost}
placeholder='Signed-off-by: @POSTER@'

log() { printf 'series: %s\n' "$*"; }
warn() { printf 'series: WARNING: %s\n' "$*" >&2; }
die() { printf 'series: error: %s\n' "$*" >&2; exit 1; }

g() { git -C "$tree" "$@"; }

# A fixed identity and date for the base commit, so that its id depends on
# the tarball alone.
base_env=(GIT_AUTHOR_NAME="Linux $KERNEL_VERSION" GIT_AUTHOR_EMAIL="linux-$KERNEL_VERSION@tarball"
	  GIT_COMMITTER_NAME="Linux $KERNEL_VERSION" GIT_COMMITTER_EMAIL="linux-$KERNEL_VERSION@tarball"
	  GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000")

# 1. The clean base tree, once.
base_tree() {
	if g rev-parse -q --verify "refs/tags/$base_tag" >/dev/null 2>&1; then
		return 0
	fi
	log "making the clean $KERNEL_VERSION git tree in $tree (once; a few minutes)"
	local deb
	deb=$(ls "$CACHE/debs/linux-source-${KERNEL_VERSION}_${KERNEL_DEB_VERSION//:/%3a}_all.deb" 2>/dev/null |
	      head -n1 || true)
	rm -rf "$tree"
	if [ -n "$deb" ]; then
		local tmp=$SERIES_DIR/deb-root
		mkdir -p "$SERIES_DIR"
		rm -rf "$tmp"
		dpkg-deb -x "$deb" "$tmp"
		local tarball
		tarball=$(ls "$tmp"/usr/src/linux-source-"$KERNEL_VERSION"*.tar.xz | head -n1)
		mkdir -p "$tree"
		tar -xJf "$tarball" -C "$tree" --strip-components=1
		rm -rf "$tmp"
		echo "linux-source-$KERNEL_VERSION $KERNEL_DEB_VERSION" > "$tree/.sched-rust-extracted"
	else
		# kernel-src.sh fetches the .deb into $CACHE/debs and extracts it.
		KSRC=$tree CACHE=$CACHE KERNEL_DEB_VERSION=$KERNEL_DEB_VERSION "$top/scripts/kernel-src.sh"
	fi
	local what
	what=$(cat "$tree/.sched-rust-extracted")
	rm -f "$tree/.sched-rust-extracted"
	g init -q -b base
	# The tarball is the source: add every file, even those a .gitignore names.
	g add -A -f .
	env "${base_env[@]}" git -C "$tree" commit -q --no-verify \
		-m "Linux $KERNEL_VERSION" -m "The $what tree, extracted from its tarball."
	g tag "$base_tag"
	{
		echo '/.sched-rust-patches/'
		echo '/.sched-rust-extracted'
	} >> "$tree/.git/info/exclude"
	log "clean tree committed: $(g log --oneline -1 "$base_tag")"
}

# patches/series, without comments and empty lines.
series_list() { grep -v -e '^#' -e '^[[:space:]]*$' "$top/patches/series"; }

# The file of this repository that is the new file $1 of the tree.
new_file_source() {
	local path=$1 d
	if [ "$path" = kernel/sched/Kconfig.rust ]; then
		echo "$top/Kconfig"
		return
	fi
	for d in rust kernel-glue kunit-tests bench; do
		if [ -f "$top/$d/$path" ]; then
			echo "$top/$d/$path"
			return
		fi
	done
	die "patches/new-files: no source for $path in rust/ kernel-glue/ kunit-tests/ bench/"
}

# "<number> <path>" lines of patches/new-files (not its "option" lines).
new_files() { grep -v -e '^#' -e '^[[:space:]]*$' -e '^[0-9]* option ' "$top/patches/new-files"; }

# The identities of the posted files, each "Name <address>", each taken only
# from its own explicit setting (a make variable or the environment), never
# from the git identity of whoever runs make series: running a target makes
# nobody an author, a signer or a maintainer.
#   SERIES_SIGNOFF     the "Signed-off-by:" that replaces each patch's
#                      "Signed-off-by: @POSTER@" line (Developer's Certificate
#                      of Origin), the committer and the cover letters' sender
#   SERIES_FROM        the author (From:) of the project's own patches, those
#                      whose From: is <$SERIES_PROJECT_EMAIL>; the ported ones
#                      keep their authors
#   SERIES_MAINTAINER  the "M:" of the MAINTAINERS entry the series adds, in
#                      place of its "M: @POSTER@"
# identity VAR: the value of VAR, checked; stops when it is unset or malformed.
identity() {
	local var=$1 who=${!1:-}
	[ -n "$who" ] || return 1
	[[ $who =~ ^[^\<\>@]+\ \<[^\<\>@\ ]+@[^\<\>\ ]+\>$ ]] ||
		die "$var='$who' is not 'Name <address>'"
	[[ $who != *@POSTER@* ]] || die "$var must not be the placeholder @POSTER@"
	printf '%s\n' "$who"
}

# Sets signoff, author_from and maintainer, or stops naming every missing
# variable.
identities() {
	local missing=() v
	for v in SERIES_SIGNOFF SERIES_FROM SERIES_MAINTAINER; do
		[ -n "${!v:-}" ] || missing+=("$v")
	done
	[ ${#missing[@]} -eq 0 ] ||
		die "set ${missing[*]} (each 'Name <address>'; make series ${missing[0]}='Name <address>' ...):
  SERIES_SIGNOFF     replaces each patch's 'Signed-off-by: @POSTER@' (DCO); committer and sender
  SERIES_FROM        the From: (author) of the project's own patches (From: <$project_email>)
  SERIES_MAINTAINER  the M: line of the MAINTAINERS entry the series adds
make series takes none of them from git config: running it makes nobody an author, a signer or a maintainer"
	signoff=$(identity SERIES_SIGNOFF)
	author_from=$(identity SERIES_FROM)
	maintainer=$(identity SERIES_MAINTAINER)
}

# fill_maintainer PREFIX FILE: SERIES_MAINTAINER in place of the "M: @POSTER@"
# line of the MAINTAINERS entry the series adds, in FILE, each line starting
# with PREFIX ("+" in a diff, "" in MAINTAINERS itself).
fill_maintainer() {
	local who
	who=$(sed 's/[&/\]/\\&/g' <<<"$maintainer")
	sed -i "s/^\($1M:[[:space:]]*\)@POSTER@\$/\1$who/" "$2"
}

# 2. make series.
make_series() {
	local signoff author_from maintainer
	identities
	base_tree
	mapfile -t series < <(series_list)
	[ ${#series[@]} -gt 0 ] || die "patches/series is empty"

	# Every entry of new-files names a patch of the series and a file we have.
	local nums=" " p n path
	for p in "${series[@]}"; do
		[ -f "$top/patches/$p" ] || die "patches/series lists $p, which does not exist"
		[[ ${p:0:4} =~ ^[0-9]{4}$ ]] || die "patches/series: $p does not start with a 4-digit number"
		[[ $nums != *" ${p:0:4} "* ]] || die "patches/series lists patch ${p:0:4} twice"
		nums+="${p:0:4} "
	done
	while read -r n path; do
		[[ $nums == *" $n "* ]] ||
			die "patches/new-files assigns $path to patch $n, which is not in patches/series"
		new_file_source "$path" >/dev/null
	done < <(new_files)
	"$top/scripts/new_file_at.py" --check || die "patches/new-files does not match the files"
	# Every patch file is listed once in patches/series or series-local
	# (which give the order; a later patch may carry a higher number, as
	# 0025 does, placed after 0014), and every listed one exists.
	local listed named
	listed=$(cat "$top/patches/series" "$top/patches/series-local" | grep -v -e '^#' -e '^[[:space:]]*$' | sort)
	named=$(cd "$top/patches" && ls -- *.patch | sort)
	[ "$listed" = "$named" ] ||
		die "patches/*.patch and the entries of patches/series and series-local differ:
$(diff <(echo "$listed") <(echo "$named") || true)"
	[ -z "$(uniq -d <<<"$listed")" ] || die "a patch is listed twice in patches/series and series-local"

	local committer_name committer_email
	committer_name=${signoff% <*}
	committer_email=${signoff##*<}
	committer_email=${committer_email%>}
	local from_name from_email
	from_name=${author_from% <*}
	from_email=${author_from##*<}
	from_email=${from_email%>}
	log "Signed-off-by (SERIES_SIGNOFF, also committer and sender): $signoff"
	log "From: of the project's own patches (SERIES_FROM): $author_from"
	log "MAINTAINERS M: (SERIES_MAINTAINER): $maintainer"
	[ "$author_from" = "$signoff" ] ||
		warn "SERIES_FROM is not SERIES_SIGNOFF: the project's own patches carry no Signed-off-by of their author (checkpatch: NO_AUTHOR_SIGN_OFF); make series signs only for SERIES_SIGNOFF, so the author's own sign-off must be added before posting"

	local work added=0 author
	read_posted
	log "posted series (patches/posted): ${posted_names[*]}; not posted: ${local_patches[*]}"

	g checkout -q -f -B series "$base_tag"
	g clean -q -fdx
	work=$SERIES_DIR/work
	rm -rf "$work"
	mkdir -p "$work"
	local i=0
	declare -A series_commit=()
	for p in "${series[@]}"; do
		i=$((i + 1))
		commit_patch "$p" all
		series_commit[${p:0:4}]=$(g rev-parse HEAD)
		log "$(printf '%2d' "$i") $p: $(g diff --shortstat HEAD~1 HEAD | sed 's/^ //')" \
			"($added new file(s)) by $author"
	done

	check_equals_apply

	# One branch per posted series: posted/<name>, its patches on its base
	# (the tag, or the stack of the series before it), picked from the
	# series branch or, for those of patches/series-local, committed there.
	# posted-stack holds every series so far, in posted order.
	local k name base q c
	g checkout -q -f -B posted-stack "$base_tag"
	for k in "${!posted_names[@]}"; do
		name=${posted_names[$k]}
		base=${posted_bases[$k]}
		if [ "$base" = base ]; then
			g checkout -q -f -B "posted/$name" "$base_tag"
		else
			g checkout -q -f -B "posted/$name" posted-stack
		fi
		for q in ${posted_patches[$k]}; do
			pick_or_commit "$q" "$name"
		done
		if [ "$base" = base ]; then
			g checkout -q -f posted-stack
			for c in $(g rev-list --reverse "$base_tag..posted/$name"); do
				pick "$c" "$name (stacked)" ||
					die "series $name does not apply on top of the series before it"
			done
		else
			g branch -f posted-stack "posted/$name"
		fi
		log "posted/$name: $(g rev-list --count "$(posted_base "$k")..posted/$name") patch(es) on $(posted_base_name "$k")"
	done
	check_stack_equals_series

	rm -rf "$out"
	mkdir -p "$out"
	for k in "${!posted_names[@]}"; do
		write_series "$k"
	done
	! grep -rlF '@POSTER@' "$out" || die "a posted file still carries @POSTER@ (above)"
	! grep -rlE '@(FIG|SUBJECT):[^@]*@' "$out" || die "a posted file still carries a @FIG:...@ or @SUBJECT:...@ placeholder (above)"
	# Every figure of a cover letter or commit message is in a results file.
	"$top/scripts/series_figures.py" check "$out"/*/*.patch ||
		die "a posted message quotes a figure that docs/results.md and docs/bench-results.md do not hold (above): take it from them with @FIG:name@ (patches/figures) or, for a number that is no measurement, justify it in patches/figures-allowed"
	# So is every figure of the Kconfig help and of the benchmarks guide,
	# which quote the same tables.
	"$top/scripts/series_figures.py" check "$top/Kconfig" "$top/docs/benchmarks.md" ||
		die "the Kconfig help or docs/benchmarks.md quotes a figure that no results file holds (above)"
	log "not posted (make apply only): ${local_patches[*]}"
}

# read_posted: patches/posted into posted_names, posted_bases, posted_covers,
# posted_kinds, posted_patches (space-separated numbers) and local_patches;
# every patch of patches/series and series-local must be in exactly one
# posted series or on the local line, and the local ones of patches/series
# must come after every posted one of it (the series branch is then the
# posted patches of patches/series, and the local ones on top).
read_posted() {
	local file=$top/patches/posted name base cover kind rest n seen=" " all p
	[ -f "$file" ] || die "no $file"
	posted_names=() posted_bases=() posted_covers=() posted_kinds=() posted_patches=() local_patches=()
	while read -r name base cover kind rest; do
		case $name in ''|'#'*) continue ;; esac
		for n in $rest; do
			[[ $n =~ ^[0-9]{4}$ ]] || die "patches/posted: $name: '$n' is not a patch number"
			[[ $seen != *" $n "* ]] || die "patches/posted lists patch $n twice"
			seen+="$n "
			patch_file "$n" >/dev/null
		done
		if [ "$name" = local ]; then
			read -r -a local_patches <<<"$rest"
			continue
		fi
		[[ $name =~ ^[a-z0-9_-]+$ ]] || die "patches/posted: bad series name '$name'"
		case $base in base|all) ;; *) die "patches/posted: $name: base must be base or all, not $base" ;; esac
		case $kind in rfc|patch) ;; *) die "patches/posted: $name: kind must be rfc or patch, not $kind" ;; esac
		[ "$cover" = - ] || [ -f "$top/patches/$cover" ] || die "patches/posted: $name: no patches/$cover"
		[ -n "$rest" ] || die "patches/posted: $name has no patches"
		[ "$cover" != - ] || [ "$(wc -w <<<"$rest")" -eq 1 ] ||
			die "patches/posted: $name has more than one patch and no cover letter"
		[[ " ${posted_bases[*]:-} " != *" all "* ]] ||
			die "patches/posted: $name comes after a series of base all, which must be the last"
		posted_names+=("$name") posted_bases+=("$base") posted_covers+=("$cover")
		posted_kinds+=("$kind") posted_patches+=("$rest")
	done < "$file"
	[ ${#posted_names[@]} -gt 0 ] || die "patches/posted names no series"
	all=$(cat "$top/patches/series" "$top/patches/series-local" | grep -v -e '^#' -e '^[[:space:]]*$' | cut -c1-4)
	for n in $all; do
		[[ $seen == *" $n "* ]] ||
			die "patch $n is in no posted series and not on the local line of patches/posted"
	done
	local after_local=
	for p in "${series[@]}"; do
		if [[ " ${local_patches[*]} " == *" ${p:0:4} "* ]]; then
			after_local=${p:0:4}
		elif [ -n "$after_local" ]; then
			die "patches/series: the posted patch ${p:0:4} comes after the local patch $after_local"
		fi
	done
}

# patch_file NNNN: the file name of patch NNNN in patches/.
patch_file() {
	local f
	f=$(grep -h -v -e '^#' -e '^[[:space:]]*$' "$top/patches/series" "$top/patches/series-local" |
	    grep "^$1-" || true)
	[ -n "$f" ] && [ "$(wc -l <<<"$f")" -eq 1 ] || die "no single patch $1 in patches/series or series-local"
	printf '%s\n' "$f"
}

in_series() { printf '%s\n' "${series[@]}" | grep -q "^$1-"; }

# posted_base K, posted_base_name K: the commit series K applies on.
posted_base() {
	if [ "${posted_bases[$1]}" = base ]; then echo "$base_tag"; else g rev-parse "posted/${posted_names[$1]}~$(wc -w <<<"${posted_patches[$1]}")"; fi
}
posted_base_name() {
	if [ "${posted_bases[$1]}" = base ]; then echo "Linux $KERNEL_VERSION"; else echo "the series before it"; fi
}

# pick COMMIT WHAT: cherry-pick COMMIT onto HEAD, keeping its author, date
# and message, with the committer of the series.
pick() {
	local date
	date=$(g log -1 --format=%ad --date=raw "$1")
	if ! GIT_COMMITTER_NAME=$committer_name GIT_COMMITTER_EMAIL=$committer_email \
	     GIT_COMMITTER_DATE=$date git -C "$tree" cherry-pick --allow-empty-message \
	     --keep-redundant-commits "$1" >/dev/null 2>"$work/pick.err"; then
		cat "$work/pick.err" >&2
		g cherry-pick --abort >/dev/null 2>&1 || true
		printf 'series: error: %s: %s does not apply\n' "$2" "$(g log -1 --format=%s "$1")" >&2
		return 1
	fi
}

# pick_or_commit NNNN NAME: patch NNNN onto HEAD for series NAME: picked from
# the series branch, or committed from its file (patches/series-local).
pick_or_commit() {
	local n=$1 name=$2
	if in_series "$n"; then
		pick "${series_commit[$n]}" "series $name" ||
			die "series $name does not stand alone on its base ($(posted_base_name "$k")): patch $n needs a patch of another series"
	else
		commit_patch "$(patch_file "$n")" own ||
			die "series $name: patch $n does not apply on its base"
	fi
}

# The stack of the posted series must hold the posted patches of
# patches/series and the posted ones of series-local: the series branch at
# its last posted patch, with the series-local ones committed on top, must
# have the same tree.
check_stack_equals_series() {
	local last= p q
	for p in "${series[@]}"; do
		[[ " ${local_patches[*]} " == *" ${p:0:4} "* ]] || last=${p:0:4}
	done
	g checkout -q -f -B series-posted-check "${series_commit[$last]}"
	for q in $(grep -h -v -e '^#' -e '^[[:space:]]*$' "$top/patches/series-local" | cut -c1-4); do
		[[ " ${local_patches[*]} " == *" $q "* ]] && continue
		commit_patch "$(patch_file "$q")" own || die "patch $q does not apply after patch $last"
	done
	g diff --quiet series-posted-check posted-stack ||
		die "the posted series, stacked, end at another tree than patches/series up to $last and the posted patches of series-local:
$(g diff --stat series-posted-check posted-stack)"
	g checkout -q -f posted-stack
	g branch -q -D series-posted-check
	log "ok: the posted series, stacked, hold patches/series up to $last and the posted patches of series-local"
}

# commit_patch FILE MODE: commit the patch FILE of patches/ onto HEAD, with
# its new files (patches/new-files): MODE "all" writes every new file that
# exists as it stands after this patch (the series branch), "own" adds only
# this patch's own. Sets author (for the log) and added.
commit_patch() {
	local p=$1 mode=$2 n=${1:0:4} subject email date sob nsob nn path
	git mailinfo -u "$work/msg" "$work/diff" < "$top/patches/$p" > "$work/info" ||
		die "$p: git mailinfo cannot read it"
	subject=$(sed -n 's/^Subject: //p' "$work/info")
	author=$(sed -n 's/^Author: //p' "$work/info")
	email=$(sed -n 's/^Email: //p' "$work/info")
	date=$(sed -n 's/^Date: //p' "$work/info")
	[ -n "$subject" ] && [ -n "$author" ] && [ -n "$email" ] && [ -n "$date" ] ||
		die "$p: the header lacks one of From:, Date:, Subject:"
	if grep -q '^diff --git ' "$work/diff"; then
		fill_maintainer + "$work/diff"
		git -C "$tree" apply --index --whitespace=nowarn "$work/diff" ||
			die "$p: its diff does not apply with git apply after the patches before it"
	fi
	added=0
	while read -r nn path; do
		if [ "$nn" = "$n" ]; then
			[ ! -e "$tree/$path" ] || die "$p: the new file $path already exists in the tree"
			added=$((added + 1))
		elif [ "$mode" != all ] || [ ! -e "$tree/$path" ]; then
			continue	# another patch's
		fi
		# As it stands after this patch: a file with one entry per
		# option gains the entries of this patch's options.
		mkdir -p "$(dirname "$tree/$path")"
		"$top/scripts/new_file_at.py" "$path" "$n" > "$tree/$path" ||
			die "$p: cannot write the new file $path as it stands after this patch"
		g add -f -- "$path"
	done < <(new_files)
	if g diff --cached --quiet; then
		die "$p: changes nothing (no diff and no new file)"
	fi
	# The message: subject, empty line, body, the figures filled from the
	# results files; SERIES_SIGNOFF's sign-off.
	{
		printf '%s\n\n' "$subject"
		cat "$work/msg"
	} > "$work/commit-msg"
	"$top/scripts/series_figures.py" fill "$work/commit-msg" ||
		die "$p: a @FIG:...@ of its message cannot be filled (above)"
	nsob=$(grep -cxF "$placeholder" "$work/commit-msg" || true)
	[ "$nsob" -le 1 ] || die "$p: more than one '$placeholder' line"
	[ "$nsob" -eq 1 ] || die "$p: no '$placeholder' line: SERIES_SIGNOFF cannot sign it off"
	sob="Signed-off-by: $signoff"
	awk -v ph="$placeholder" -v sob="$sob" '$0 == ph { $0 = sob } { print }' \
		"$work/commit-msg" > "$work/commit-msg.new"
	mv "$work/commit-msg.new" "$work/commit-msg"
	# The project's own patches are SERIES_FROM's.
	if [ "$email" = "$project_email" ]; then
		author=$from_name
		email=$from_email
	fi
	GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
	GIT_COMMITTER_NAME=$committer_name GIT_COMMITTER_EMAIL=$committer_email \
	GIT_COMMITTER_DATE=$date \
		git -C "$tree" commit -q --no-verify --cleanup=verbatim -F "$work/commit-msg"
}

# cover_text K: the cover letter of series K, its @SUBJECT:name@ (the
# subject of series name: its cover letter's first line, or its one
# patch's) and @FIG:name@ placeholders filled.
cover_text() {
	local k=$1 cover=$top/patches/${posted_covers[$1]} f=$work/cover-${posted_names[$1]}.txt j subj
	cp "$cover" "$f"
	for j in "${!posted_names[@]}"; do
		if [ "${posted_covers[$j]}" = - ]; then
			subj=$(g log -1 --format=%s "posted/${posted_names[$j]}")
		else
			subj=$(head -n1 "$top/patches/${posted_covers[$j]}")
		fi
		SUBJ=$subj NAME=${posted_names[$j]} perl -pi -e 's/\@SUBJECT:\Q$ENV{NAME}\E\@/$ENV{SUBJ}/g' "$f"
	done
	"$top/scripts/series_figures.py" fill "$f" ||
		die "${posted_covers[$k]}: a @FIG:...@ cannot be filled (above)"
	printf '%s\n' "$f"
}

# write_series K: git format-patch of series K (posted/<name> from its base)
# into $out/<name>, numbered from 1, with its cover letter (none for a
# series of one patch without one), To: the maintainers and Cc: the
# reviewers and lists that the tree's get_maintainer.pl gives for the
# series' changes, [RFC PATCH] for an RFC.
write_series() {
	local k=$1 name=${posted_names[$1]} dir=$out/${posted_names[$1]} f from to=posted/${posted_names[$1]}
	local -a recipients=() extra=()
	from=$(posted_base "$k")
	[ "${posted_kinds[$k]}" = rfc ] && extra+=(--rfc)
	if [ "${posted_covers[$k]}" != - ]; then
		g config "branch.$to.description" "$(cat "$(cover_text "$k")")"
		extra+=(--cover-letter --cover-from-description=subject)
	fi
	# get_maintainer.pl reads the whole series as one diff, with the tree's
	# MAINTAINERS as the series leaves it.
	g diff "$from" "$to" > "$out/$name.diff"
	g checkout -q -f "$to"
	while read -r f; do recipients+=("--to=$f"); done < <(maintainers --m --nor --nol "$out/$name.diff")
	while read -r f; do recipients+=("--cc=$f"); done < <(maintainers --nom --r --l "$out/$name.diff")
	g checkout -q -f posted-stack
	rm -f "$out/$name.diff"
	[ ${#recipients[@]} -gt 0 ] || die "get_maintainer.pl found no recipient for the $name series"
	# shellcheck disable=SC2086
	GIT_COMMITTER_NAME=$committer_name GIT_COMMITTER_EMAIL=$committer_email \
		git -C "$tree" format-patch -q --no-signature --zero-commit "${extra[@]}" \
		${SERIES_FORMAT_ARGS:-} "${recipients[@]}" -o "$dir" "$from..$to"
	local cover_file
	if [ "${posted_covers[$k]}" != - ]; then
		cover_file=$(ls "$dir"/*0000-cover-letter.patch)
		! grep -q '\*\*\*.*HERE \*\*\*' "$cover_file" || die "the $name cover letter kept git's placeholders"
	fi
	log "wrote the $name series, $(ls "$dir" | wc -l) file(s), into $dir" \
		"(${#recipients[@]} recipients; on $(posted_base_name "$k")):"
	ls "$dir" | sed 's/^/  /'
}

# maintainers OPTION... DIFF: the tree's get_maintainer.pl for DIFF, by the
# files it touches only (no git history, no keywords of commit messages).
maintainers() {
	(cd "$tree" && perl scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback \
		--nokeywords "$@") 2>/dev/null | sort -u
}

# The series' last commit must hold exactly the tree make apply makes: apply.sh
# run on the clean tree (detached at the tag, in the same work tree) must give
# the same files, and nothing else.
check_equals_apply() {
	log "checking that the series ends where make apply does (scripts/apply.sh on the clean tree, patches/series only)"
	g checkout -q -f --detach "$base_tag"
	g clean -q -fdx
	local aout
	if ! aout=$(APPLY_POSTED_ONLY=1 KSRC=$tree "$top/scripts/apply.sh" 2>&1); then
		printf '%s\n' "$aout" >&2
		g checkout -q -f series
		die "scripts/apply.sh fails on the clean tree"
	fi
	rm -rf "$tree/.sched-rust-patches"
	# make apply leaves the MAINTAINERS entry's "M: @POSTER@" as the patch has it;
	# the series has SERIES_MAINTAINER there.
	fill_maintainer "" "$tree/MAINTAINERS"
	g add -A -f .
	local diff
	diff=$(g diff --cached --stat series)
	g reset -q
	g checkout -q -f series
	g clean -q -fdx
	if [ -n "$diff" ]; then
		printf '%s\n' "$diff" >&2
		die "MISMATCH: the series' last commit differs from what make apply produces (above: make apply's tree vs the series)"
	fi
	log "ok: the series' last commit has the tree make apply produces"
}

# 3. The posted files, applied with git am: each series on its own base,
# each ending where make series' branch posted/<name> does; then all of
# them in posted order on one branch, series-am, which the builds use.
# am_one NAME: git am $out/NAME onto HEAD, then compare with posted/NAME.
am_one() {
	local name=$1 before
	mapfile -t files < <(ls "$out/$name"/*.patch 2>/dev/null | grep -v -- '-cover-letter\.patch$')
	[ ${#files[@]} -gt 0 ] || die "no patches in $out/$name (make series)"
	before=$(g rev-parse HEAD)
	if ! GIT_COMMITTER_NAME="sched-rust series" GIT_COMMITTER_EMAIL=series@sched-rust.invalid \
			git -C "$tree" am -q --no-3way "${files[@]}"; then
		g am --abort >/dev/null 2>&1 || true
		die "git am fails on the posted $name series (above)"
	fi
	g diff --quiet "posted/$name" HEAD ||
		die "git am of the posted $name series ends at another tree than make series' posted/$name"
	[ "$(g rev-list --count "$before..HEAD")" = "${#files[@]}" ] ||
		die "git am made another number of commits than the $name series has patches"
	log "ok: git am applies the ${#files[@]} patch(es) of the $name series on $2 ($(g rev-parse --short HEAD))"
}

# The order in which series-am holds the patches, one number a line
# ($SERIES_DIR/am-order), and the branch series-rfc-base: series-am's last
# commit before the first series with base "all" (the base of the object
# comparison: every series that stands on Linux alone).
am_series() {
	g rev-parse -q --verify refs/heads/posted-stack >/dev/null || die "run make series first"
	mapfile -t series < <(series_list)
	read_posted
	g am --abort >/dev/null 2>&1 || true
	local k name
	# Each series of base "base" alone on Linux.
	for k in "${!posted_names[@]}"; do
		name=${posted_names[$k]}
		[ "${posted_bases[$k]}" = base ] || continue
		g checkout -q -f -B "series-am-$name" "$base_tag"
		g clean -q -fdx
		am_one "$name" "Linux $KERNEL_VERSION"
	done
	# All of them, in posted order.
	g checkout -q -f -B series-am "$base_tag"
	g clean -q -fdx
	: > "$SERIES_DIR/am-order"
	g branch -f series-rfc-base "$base_tag"
	for k in "${!posted_names[@]}"; do
		name=${posted_names[$k]}
		mapfile -t files < <(ls "$out/$name"/*.patch | grep -v -- '-cover-letter\.patch$')
		GIT_COMMITTER_NAME="sched-rust series" GIT_COMMITTER_EMAIL=series@sched-rust.invalid \
			git -C "$tree" am -q --no-3way "${files[@]}" ||
			{ g am --abort >/dev/null 2>&1 || true; die "git am fails on the $name series on top of the series before it"; }
		printf '%s\n' ${posted_patches[$k]} >> "$SERIES_DIR/am-order"
		[ "${posted_bases[$k]}" != base ] || g branch -f series-rfc-base HEAD
	done
	g diff --quiet posted-stack HEAD ||
		die "git am of every posted series, in order, ends at another tree than make series' posted-stack"
	log "ok: git am applies every posted series in order ($(g rev-list --count "$base_tag..HEAD") patches, $(g rev-parse --short HEAD)); object comparison base: $(g rev-parse --short series-rfc-base)"
}

# 4. Every commit builds on its own: the commits of each series of base
# "base" on Linux itself (the branches series-am-<name>), then those of the
# series of base "all" on top of the others (series-am).
bisect_series() {
	local kout=${SERIES_KOUT:?} config=${SERIES_CONFIG:?} first_rust=${SERIES_FIRST_RUST:-0015}
	[ -f "$config" ] || die "no configuration $config (make series-check builds it)"
	g rev-parse -q --verify refs/heads/series-am >/dev/null || die "run make series-check first"
	mapfile -t series < <(series_list)
	read_posted
	# label commit number, one a line: what to build, in order.
	local -a todo=()
	local k name c j nums
	for k in "${!posted_names[@]}"; do
		name=${posted_names[$k]}
		read -r -a nums <<<"${posted_patches[$k]}"
		if [ "${posted_bases[$k]}" = base ]; then
			mapfile -t commits < <(g rev-list --reverse "$base_tag..series-am-$name")
		else
			mapfile -t commits < <(g rev-list --reverse "series-am~${#nums[@]}..series-am")
		fi
		[ ${#commits[@]} -eq ${#nums[@]} ] ||
			die "the $name series has ${#commits[@]} commits, patches/posted ${#nums[@]}: run make series-check again"
		for j in "${!commits[@]}"; do
			todo+=("$name ${commits[$j]} ${nums[$j]}")
		done
	done
	mkdir -p "$kout"
	local passed=0 failed=0 skipped=0 i p n t0 t1 why log_file from=${SERIES_BISECT_FROM:-} t rust_seen=0
	if [ -n "$from" ] && ! printf '%s\n' "${todo[@]}" | grep -q " $from\$"; then
		die "SERIES_BISECT_FROM=$from: no such patch in patches/posted"
	fi
	printf '%s\n' "${todo[@]}" | grep -q " $first_rust\$" ||
		die "SERIES_FIRST_RUST=$first_rust: no such patch in patches/posted"
	for i in "${!todo[@]}"; do
		read -r name c n <<<"${todo[$i]}"
		p="$name $(patch_file "$n")"
		# The commits before the first Rust patch must carry no Rust.
		[ "$n" != "$first_rust" ] || rust_seen=1
		# Resume at a patch (in build order): the commits before it are
		# those of an earlier run.
		if [ -n "$from" ]; then
			if [ "$n" != "$from" ]; then
				skipped=$((skipped + 1))
				printf 'skip %2d %s\n' $((i + 1)) "$p"
				continue
			fi
			from=
		fi
		g checkout -q -f --detach "$c"
		g clean -q -fdx
		log_file=$SERIES_DIR/bisect-$(printf '%02d' $((i + 1)))-$n.log
		why=
		t0=$(date +%s)
		cp "$config" "$kout/.config"
		if ! $SERIES_KMAKE KSRC="$tree" KOUT="$kout" KTARGETS="olddefconfig bzImage" \
				> "$log_file" 2>&1; then
			why="build failed: $(grep -m1 -E 'error:|Error [0-9]' "$log_file" || tail -n1 "$log_file")"
		fi
		t1=$(date +%s)
		if [ "$rust_seen" = 0 ]; then
			local rs
			rs=$(g ls-tree -r --name-only HEAD kernel/sched | grep '\.rs$' || true)
			[ -z "$rs" ] || why+="${why:+; }Rust in kernel/sched before patch $first_rust: $(echo $rs)"
			if [ -f "$kout/kernel/sched/built-in.a" ] &&
			   grep -q rust < <(ar t "$kout/kernel/sched/built-in.a"); then
				why+="${why:+; }Rust objects in kernel/sched/built-in.a"
			fi
			if [ -f "$kout/System.map" ] && grep -q sched_rust "$kout/System.map"; then
				why+="${why:+; }sched_rust symbols in System.map"
			fi
		fi
		if [ -z "$why" ]; then
			passed=$((passed + 1))
			printf 'ok   %2d %s  %4ds\n' $((i + 1)) "$p" $((t1 - t0))
		else
			failed=$((failed + 1))
			printf 'FAIL %2d %s  %4ds  %s (log: %s)\n' $((i + 1)) "$p" $((t1 - t0)) "$why" "$log_file"
		fi
	done
	g checkout -q -f series-am
	# The commits skipped by SERIES_BISECT_FROM are in the tally, so that a
	# resumed run is not recorded as a whole one.
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

case ${1:-make} in
make) make_series ;;
am) am_series ;;
bisect) bisect_series ;;
base) base_tree ;;
*) die "usage: series.sh [make|am|bisect|base]" ;;
esac
