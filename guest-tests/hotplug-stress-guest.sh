#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (scripts/hotplug-stress.sh through scripts/vm-kunit.sh's
# VM_EXTRA): CPUs and whole NUMA nodes go offline and online under load,
# with a sched_ext scheduler attached, stealing on and the shadow check
# comparing every call.
# Usage: hotplug-stress-guest.sh OUTDIR
#
# For each of HOTPLUG_ROUNDS rounds (a seeded pseudo-random sequence,
# HOTPLUG_SEED, printed): one scheduler of HOTPLUG_SCHEDS (in
# HOTPLUG_SCHED_BIN) is attached with one idle picker (C or Rust, through
# sched/rust/idle_pick; the steal walk and sparsemask in the same
# language): round k (from HOTPLUG_COMBO_START) has the C picker when k is
# even, the Rust one when it is odd, and scheduler k mod n (n odd) or
# (k + k / n) mod n (n even), so that each scheduler has the other picker
# on the next pass through the list; then a random set of CPUs goes offline, in random order,
# that holds every CPU of one node chosen at random among the nodes whose
# CPUs can all go offline; after a short random pause they come back, in
# random order. This x86 guest cannot take CPU 0 offline (it has no
# /sys/devices/system/cpu/cpu0/online: no BOOTPARAM_HOTPLUG_CPU0 in 7.3's
# x86 Kconfig), so its node is
# never emptied: a node qualifies when each of its CPUs has an online file.
# Meanwhile hackbench and bench/wakeup-latency.c run in loops, from the
# first round to the end.
#
# After each round (round=N) and at the end (round=end, the loads stopped),
# one line per check in OUTDIR/hotplug.txt:
#
#   round=<N|end> check=<name> result=<ok|fail> <key=value details>
#
#   online        every CPU online again, and a task pinned to each runs there
#   steal         the mismatches line of /sys/kernel/debug/sched/steal is 0
#                 (each CPU read under its rq lock: overload bit == 2 or more
#                 runnable), while the CPUs are offline and once they are
#                 back; every CPU has its LLC's overload mask again
#   node-order    the table of /sys/kernel/debug/sched/rust/node_order equals
#                 the order the distances in /sys/devices/system/node/node*/
#                 distance give: each row every node by (distance, id)
#   node-rebuilds the rebuilds it counts: while the CPUs are offline, at least
#                 one per node emptied (sched_update_numa() rebuilds when a
#                 node's last CPU goes), and as many again once they are back
#                 (when a node's first CPU comes)
#   scheduler     the scheduler attached from the start of the round to its
#                 stop by SIGINT, or detached by the kernel with a reason
#                 (sched_ext's "disabled (...)" line, and the scheduler's own
#                 exit message): reported; an error exit (runtime error,
#                 stall, ...) fails, and so does a detach with no reason in
#                 the kernel log. scx_bpf_error() from the scheduler's own
#                 BPF code (the kernel names its .bpf.c line) is reported
#                 with that line, as the scheduler's reason. The other picker's counters
#                 must not move; for the per-node schedulers (HOTPLUG_PER_NODE)
#                 the flags must have SCX_OPS_BUILTIN_IDLE_PER_NODE.
#   shadow        no difference in /sys/kernel/debug/sched/rust/shadow during
#                 the round (calls compared reported)
#   kernel-log    no line of scripts/kcsan_filter.py's report pattern
#                 (OUTDIR/bad-re.txt) or of an RCU stall in the round's kernel
#                 log; KCSAN reports are left to the host's filter
#                 (scripts/vm-kunit.sh, scripts/hotplug_report.py)
#   load          (end) hackbench and wakeup-latency runs all succeeded
#
# and one summary line per round:
#
#   round=N sched=<s> picker=<c|rust> per-node=<yes|no|-> offline=<cpus>
#       emptied=<nodes> rebuilds-offline=<n> rebuilds-online=<n> ...
#
# Every file the round leaves (the scheduler's log, the round's kernel log,
# the shadow and node_order files before and after) is in OUTDIR.
set -u

out=${1:?usage: hotplug-stress-guest.sh OUTDIR}
res=$out/hotplug.txt
rounds=${HOTPLUG_ROUNDS:-4}
seed=${HOTPLUG_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
combo0=${HOTPLUG_COMBO_START:-0}
bin=${HOTPLUG_SCHED_BIN:-}
scheds=${HOTPLUG_SCHEDS:-}
per_node=" ${HOTPLUG_PER_NODE:-} "
wl=${HOTPLUG_WAKEUP_LATENCY:-}
hb_args=${HOTPLUG_HACKBENCH_ARGS:--g 2 -l 20}
wl_args=${HOTPLUG_WAKEUP_ARGS:--m 1 -t 4 -r 5}
# The report pattern of scripts/kcsan_filter.py --report-re, which the host
# writes into OUTDIR/bad-re.txt.
bad_re='BUG:|WARNING:|Oops|Kernel panic|possible recursive locking|inconsistent lock state|circular locking'
[ -s "$out/bad-re.txt" ] && bad_re=$(cat "$out/bad-re.txt")
rcu_re='rcu: INFO: rcu_[a-z]* (self-)?detected stall|detected stalls on CPUs|rcu_[a-z]* kthread starved|rcu_[a-z]* kthread timer wakeup didn.t happen'
# How long a scheduler may take to attach (BPF verification under TCG),
# and to attach again after the kernel detached it.
attach_secs=${HOTPLUG_ATTACH_SECS:-120}
# A "runnable task stall" exit of the scheduler: reported, and a failure
# only with HOTPLUG_STALL_FAILS=1. Under TCG, bringing a CPU online stops
# every vCPU (stop_machine) for seconds while 8 or 16 vCPUs share 2 host
# cores, and the scx project's schedulers time tasks out after 5 s.
stall_ok=1
[ "${HOTPLUG_STALL_FAILS:-0}" = 1 ] && stall_ok=0
dbg=/sys/kernel/debug
rust=$dbg/sched/rust
steal=$dbg/sched/steal
order=${HOTPLUG_NODE_ORDER_FILE:-$rust/node_order}
shadow=$rust/shadow
switch=$rust/idle_pick
picks=$rust/idle_picks
state=/sys/kernel/sched_ext/state
sysnode=/sys/devices/system/node
syscpu=/sys/devices/system/cpu

mountpoint -q $dbg || mount -t debugfs none $dbg
. "$(dirname "$0")/steal-lib.sh"
: > "$res"
say() { echo "sched-rust: hotplug $*" > /dev/kmsg; }
record() { # round check result detail...
	_r=$1 _c=$2 _res=$3; shift 3
	echo "round=$_r check=$_c result=$_res $*" >> "$res"
	# The details stay in the file: the console must not quote a report.
	say "round $_r $_c: $_res"
}

# --- a seeded pseudo-random sequence (an LCG; 64-bit shell arithmetic) ---
rng=$((seed % 2147483648))
rand() { # N: sets r to 0..N-1
	rng=$(( (rng * 1103515245 + 12345) % 2147483648 ))
	r=$(( (rng / 65536) % $1 ))
}
# shuffle WORDS...: prints them in a random order
shuffle() {
	_left="$*" _outw=
	while [ -n "$_left" ]; do
		set -- $_left
		rand $#
		_i=0 _rest=
		for _w; do
			if [ $_i -eq $r ]; then _outw="$_outw $_w"; else _rest="$_rest $_w"; fi
			_i=$((_i + 1))
		done
		_left=${_rest# }
	done
	echo "${_outw# }"
}

# expand CPULIST: "0-3,6" -> "0 1 2 3 6"
expand() {
	echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, a, "-");
		if (a[1] == "") continue; hi = n > 1 ? a[2] : a[1];
		for (c = a[1]; c <= hi; c++) printf "%s%d", (o++ ? " " : ""), c } } END { print "" }'
}
# compress "0 1 2 5" -> "0-2,5"
compress() {
	echo "$*" | tr ' ' '\n' | sort -n | awk 'NF { if (s == "") { s = e = $1 } else if ($1 == e + 1) { e = $1 }
		else { o = o (o == "" ? "" : ",") (s == e ? s : s "-" e); s = e = $1 } }
		END { if (s != "") o = o (o == "" ? "" : ",") (s == e ? s : s "-" e); print (o == "" ? "-" : o) }'
}
count() { set -- $*; echo $#; }

# --- the topology at the start ---
all_cpus=$(expand "$(cat $syscpu/possible)")
nodes=$(expand "$(cat $sysnode/possible)")
hp_cpus=
for c in $all_cpus; do [ -w $syscpu/cpu$c/online ] && hp_cpus="$hp_cpus $c"; done
hp_cpus=${hp_cpus# }
eligible=
for n in $nodes; do
	[ -r $sysnode/node$n/cpulist ] || continue
	cl=$(expand "$(cat $sysnode/node$n/cpulist)")
	eval "node_cpus_$n=\"$cl\""
	[ -n "$cl" ] || continue
	ok=1
	for c in $cl; do [ -w $syscpu/cpu$c/online ] || ok=0; done
	[ $ok = 1 ] && eligible="$eligible $n"
done
eligible=${eligible# }
cpu0_note="cpu0 can go offline"
[ -e $syscpu/cpu0/online ] || cpu0_note="cpu0 cannot go offline (no $syscpu/cpu0/online), its node is never emptied"
echo "seed=$seed rounds=$rounds cpus=$(compress $all_cpus) hotpluggable=$(compress $hp_cpus) nodes=$(compress $nodes) emptiable-nodes=$(compress $eligible) scheds=$(echo $scheds | tr ' ' ,) combo-start=$combo0 note=\"$cpu0_note\"" > "$out/hotplug-setup.txt"
say "seed $seed, $rounds rounds; nodes that can be emptied: ${eligible:-none}; $cpu0_note"
for n in $nodes; do
	[ -r $sysnode/node$n/distance ] && echo "distances node=$n: $(cat $sysnode/node$n/distance)" >> "$out/hotplug-setup.txt"
done
cat "$out/hotplug-setup.txt" >> "$res"

fatal=
[ -n "$eligible" ] || fatal="no node whose CPUs can all go offline"
[ -r $steal ] || fatal="${fatal:+$fatal; }no $steal"
[ -w $switch ] || fatal="${fatal:+$fatal; }no $switch (CONFIG_SCHED_RUST_SWITCH)"
[ -r $state ] || fatal="${fatal:+$fatal; }no $state (sched_ext)"
[ -n "$scheds" ] || fatal="${fatal:+$fatal; }no scheduler given (HOTPLUG_SCHEDS)"
if [ -n "$fatal" ]; then
	record setup setup fail "$fatal"
	exit 1
fi
echo 1 > /proc/sys/kernel/sched_schedstats
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null

# --- readers ---
mismatches() { awk '$1 == "mismatches" { print $2 }' $steal; }
# CPUs (of those online) without an overload mask (llc column -1)
nomask() { awk '$1 ~ /^[0-9]+$/ && $2 == -1 { printf "%s%s", (n++ ? "," : ""), $1 } END { print "" }' $steal; }
rebuilds() { [ -r "$order" ] && awk '$1 == "rebuilds" { print $2; f = 1 } END { if (!f) print "?" }' "$order" || echo none; }
# shadow_totals FILE: "<calls> <differences>"
shadow_totals() { awk '$1 == "total" { gsub(",", ""); print $2, $4; f = 1 } END { if (!f) print "0 0" }' "$1"; }
# sum PICKER FILE: that picker's counts (sched/rust/idle_picks)
pick_sum() { awk -v p="$1" '$1 == p { s += $NF } END { print s + 0 }' "$2"; }
node_pick_sum() { awk -v p="$1" '$1 == p && $2 == "in_node" && $3 >= 0 { s += $4 } END { print s + 0 }' "$2"; }
# Builtins only where it is cheap (read, not cat): under TCG beside the
# loads, each program started costs seconds (its file comes over 9p).
is_online() { # CPU: CPU 0 has no online file and is always online
	[ -e $syscpu/cpu$1/online ] || return 0
	read -r _v < $syscpu/cpu$1/online
	[ "$_v" = 1 ]
}
offline_now() { # the CPUs of LIST that are offline
	_o=
	for _c in $1; do is_online $_c || _o="$_o $_c"; done
	echo "${_o# }"
}
emptied_nodes() { # the nodes that had CPUs at the start and have none online now
	_e=
	for _n in $nodes; do
		eval "_cl=\${node_cpus_$_n:-}"
		[ -n "$_cl" ] || continue
		_any=0
		for _c in $_cl; do is_online $_c && _any=1; done
		[ $_any = 0 ] && _e="$_e $_n"
	done
	echo "${_e# }"
}

# pinned_not_running: the CPUs where a task pinned to them did not run
# within 60 s (twice 30 s), or ran elsewhere: "<cpu>:<what happened>"
pinned_not_running() {
	_nr=
	for _c in $all_cpus; do
		for _try in 1 2; do
			_got=$(timeout 30 taskset -c "$_c" awk '{ print $39 }' /proc/self/stat 2>&1)
			_rc=$?
			[ "$_got" = "$_c" ] && break
		done
		if [ "$_got" != "$_c" ]; then
			[ $_rc = 124 ] && _got=timeout
			_nr="$_nr $_c:$(echo "$_got" | tr -s ' \n' '__' | cut -c1-60)"
		fi
	done
	echo "${_nr# }"
}

# check_node_order: compares the node_order table with the distances;
# prints "ok <detail>" or "fail <detail>"
check_node_order() {
	if [ ! -r "$order" ]; then echo "fail no node_order file ($order)"; return; fi
	cp "$order" "$out/node_order.last"
	{
		cat "$order" | sed 's/^/O /'
		echo "P $(cat $sysnode/possible)"
		echo "N $(cat $sysnode/online)"
		for _n in $nodes; do
			[ -r $sysnode/node$_n/distance ] && echo "D $_n $(cat $sysnode/node$_n/distance)"
		done
	} | awk '
	function expand(s, out,   k, i, p, a, c) { k = 0; p = split(s, a, ",")
		for (i = 1; i <= p; i++) { split(a[i], b, "-"); hi = (a[i] ~ /-/) ? b[2] : b[1]
			for (c = b[1]; c <= hi; c++) out[k++] = c + 0 } return k }
	$1 == "O" && $2 == "nodes" { nr = $3 + 0; have_nr = 1 }
	$1 == "O" && $2 == "table" && $3 == "none" { none = 1 }
	$1 == "O" && $2 ~ /^[0-9]+:$/ { f = $2; sub(":", "", f); row[f + 0] = $0; rows++ }
	$1 == "P" { np = expand($2, poss); maxp = poss[np - 1] + 1 }
	$1 == "N" { no = expand($2, onl) }
	$1 == "D" { d[$2 + 0] = $0 }
	END {
		if (!have_nr) { print "fail node_order has no nodes line"; exit }
		if (nr != maxp) { printf "fail nodes %d but the possible nodes end at %d\n", nr, maxp; exit }
		if (none) { print "fail table none: no order published"; exit }
		bad = ""
		for (from = 0; from < nr; from++) {
			if (!(from in d)) { bad = bad sprintf(" row %d: node %d has no distances in sysfs (not online);", from, from); continue }
			# distance of from to each online node, in id order
			m = split(d[from], df, " ")
			if (m - 2 != no) { bad = bad sprintf(" row %d: %d distances for %d online nodes;", from, m - 2, no); continue }
			for (i = 0; i < nr; i++) known[i] = 0
			for (i = 0; i < no; i++) { dist[onl[i]] = df[i + 3] + 0; known[onl[i]] = 1 }
			k = 0; miss = ""
			for (i = 0; i < nr; i++) { if (!known[i]) miss = miss " " i; ord[k++] = i }
			if (miss != "") { bad = bad sprintf(" row %d: no distance to node(s)%s;", from, miss); continue }
			# insertion sort by (distance, id)
			for (i = 1; i < nr; i++) { v = ord[i]; j = i - 1
				while (j >= 0 && (dist[ord[j]] > dist[v] || (dist[ord[j]] == dist[v] && ord[j] > v))) { ord[j + 1] = ord[j]; j-- }
				ord[j + 1] = v }
			want = from ":"; for (i = 0; i < nr; i++) want = want " " ord[i]
			if (!(from in row)) { bad = bad sprintf(" row %d missing (want %s);", from, want); continue }
			split(row[from], rf, " "); got = rf[2]; for (i = 3; i in rf; i++) got = got " " rf[i]
			if (got != want) bad = bad sprintf(" row %d: [%s] want [%s];", from, got, want)
		}
		if (rows != nr) bad = bad sprintf(" %d rows for %d nodes;", rows, nr)
		if (bad == "") printf "ok nodes=%d rows=%d\n", nr, rows
		else { gsub(/;$/, "", bad); print "fail" bad }
	}'
}

# The loads: loops until $out/loads.stop exists; each failed run counted.
# Each loop is a process group of its own (setsid), so that it can be
# stopped while a scheduler loads (BPF verification under TCG takes over a
# minute beside the loads, seconds without) and during the checks, and
# continued for the hotplug; at nice 19, so that this script, which does
# the hotplug and the checks, is not starved by them (under TCG, 8 or 16
# vCPUs share 2 host cores).
rm -f "$out/loads.stop"
: > "$out/load-failures.txt"
# loop NAME COMMAND...: runs COMMAND until the stop file exists
loop() {
	_name=$1; shift
	# shellcheck disable=SC2016 # expanded by the inner sh
	setsid nice -n 19 sh -c 'n=0 out=$1 name=$2; shift 2
		while [ ! -e "$out/loads.stop" ]; do
			"$@" > "$out/$name.last" 2>&1 || echo "$name $? $(tail -n 1 "$out/$name.last")" >> "$out/load-failures.txt"
			n=$((n + 1)); echo $n > "$out/$name.runs"
		done' sh "$out" "$_name" "$@" &
}
# shellcheck disable=SC2086
loop hackbench hackbench $hb_args
hb_loop=$!
wl_loop=
if [ -n "$wl" ] && [ -x "$wl" ]; then
	# shellcheck disable=SC2086
	loop wakeup-latency "$wl" $wl_args
	wl_loop=$!
else
	echo "wakeup-latency missing (HOTPLUG_WAKEUP_LATENCY=$wl)" >> "$out/load-failures.txt"
fi
loads() { # STOP|CONT
	kill -"$1" -$hb_loop 2>/dev/null
	[ -n "$wl_loop" ] && kill -"$1" -$wl_loop 2>/dev/null
}

nsched=$(count $scheds)
shadow_start=
[ -r $shadow ] && shadow_start=$(shadow_totals $shadow)
rebuilds_start=$(rebuilds)

round=0
while [ $round -lt "$rounds" ]; do
	round=$((round + 1))
	# The next scheduler each round, the pickers alternating; each
	# scheduler has the other picker on the next pass through the list
	# (with an even number of schedulers, each pass starts one further).
	k=$((combo0 + round - 1))
	i=$((k % nsched))
	[ $((nsched % 2)) = 0 ] && i=$(( (k + k / nsched) % nsched ))
	if [ $((k % 2)) = 0 ]; then mode=c use_rust=N other=rust; else mode=rust use_rust=Y other=c; fi
	set -- $scheds; shift $i; s=$1
	tag=r$round-$s-$mode
	mark="sched-rust: hotplug round $round starts: $s with the $mode picker"
	loads STOP
	echo "$mark" > /dev/kmsg
	t0=$(date +%s)

	# The picker and the steal walk in one language.
	echo $use_rust > $switch
	set_mode $mode 2>/dev/null || set_mode c
	[ -r $shadow ] && cp $shadow "$out/$tag.shadow.before"
	[ -r $picks ] && cat $picks > "$out/$tag.picks.before"
	rb0=$(rebuilds)

	# Attach the scheduler, the loads stopped meanwhile.
	"$bin/$s" > "$out/$tag.sched.log" 2>&1 &
	spid=$!
	ops=
	w=0
	while [ $w -lt $((attach_secs * 2)) ]; do
		[ "$(cat $state)" = enabled ] && ops=$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null) && [ -n "$ops" ] && break
		kill -0 $spid 2>/dev/null || break
		sleep 0.5; w=$((w + 1))
	done
	t_attach=$(( $(date +%s) - t0 ))
	loads CONT
	sleep 1

	# The CPUs to take offline: every CPU of one emptiable node, and
	# each other hotpluggable CPU with probability 1/4.
	set -- $eligible; rand $#; shift $r; node=$1
	eval "set_cpus=\${node_cpus_$node}"
	for c in $hp_cpus; do
		case " $set_cpus " in *" $c "*) continue ;; esac
		rand 4; [ $r = 0 ] && set_cpus="$set_cpus $c"
	done
	set_cpus=$(shuffle $set_cpus)
	say "round $round: $s ($mode picker, attached in ${t_attach} s): CPUs $set_cpus go offline, node $node among them"
	errs=
	t1=$(date +%s)
	offt=
	for c in $set_cpus; do
		echo 0 > $syscpu/cpu$c/online 2> "$out/hp.err" || errs="$errs off$c:$(tr -d '\n' < "$out/hp.err")"
		offt="$offt,$c:$(( $(date +%s) - t1 ))"
	done
	rand 20; pause=$(( r + 2 ))	# tenths of a second: 0.2 to 2.1 s
	sleep "$((pause / 10)).$((pause % 10))"
	off=$(offline_now "$set_cpus")
	emptied=$(emptied_nodes)
	rb1=$(rebuilds)
	m_off=$(mismatches)
	order_off=$(check_node_order)
	t2=$(date +%s)
	ont=
	for c in $(shuffle $set_cpus); do
		echo 1 > $syscpu/cpu$c/online 2> "$out/hp.err" || errs="$errs on$c:$(tr -d '\n' < "$out/hp.err")"
		ont="$ont,$c:$(( $(date +%s) - t2 ))"
	done
	rand 20; pause2=$(( r + 2 ))
	sleep "$((pause2 / 10)).$((pause2 % 10))"
	rb2=$(rebuilds)
	t3=$(date +%s)

	# A quiescent point for the checks: the loads stopped. The
	# scheduler: attached, or (detached by the kernel) attached again
	# by its own restart, or gone with the kernel's reason.
	loads STOP
	w=0
	while [ $w -lt $((attach_secs * 2)) ] && kill -0 $spid 2>/dev/null; do
		[ "$(cat $state)" = enabled ] && break
		sleep 0.5; w=$((w + 1))
	done
	st_end=$(cat $state)
	alive=no; kill -0 $spid 2>/dev/null && alive=yes
	notback=$(offline_now "$all_cpus")
	norun=$(pinned_not_running)
	kill -INT $spid 2>/dev/null
	w=0
	while [ $w -lt 40 ] && kill -0 $spid 2>/dev/null; do sleep 0.5; w=$((w + 1)); done
	kill -0 $spid 2>/dev/null && kill -KILL $spid
	wait $spid 2>/dev/null
	w=0
	while [ $w -lt 20 ] && [ "$(cat $state)" != disabled ]; do sleep 0.5; w=$((w + 1)); done
	dmesg | awk -v m="$mark" 'found { print } index($0, m) { found = 1 }' > "$out/$tag.dmesg"
	[ -r $picks ] && cat $picks > "$out/$tag.picks.after"
	[ -r $shadow ] && cp $shadow "$out/$tag.shadow.after"

	# online: every CPU back, and a task pinned to each ran there (checked
	# above, with the scheduler still running).
	detail="offline=$(compress $off) not-back=$(compress $notback) not-running-pinned=${norun:--}${errs:+ errors=$(echo $errs | tr ' ' ';')}"
	if [ -z "$notback" ] && [ -z "$norun" ] && [ -z "$errs" ]; then
		record $round online ok "$detail"
	else
		record $round online fail "$detail"
	fi

	# steal: no mismatch while the CPUs were offline nor now; every CPU
	# has its mask again.
	sleep 0.5
	m_on=$(mismatches) nm=$(nomask)
	detail="mode=$mode mismatches-offline=${m_off:-?} mismatches-online=${m_on:-?} cpus-without-mask=${nm:--}"
	if [ "${m_off:-x}" = 0 ] && [ "${m_on:-x}" = 0 ] && [ -z "$nm" ]; then
		record $round steal ok "$detail"
	else
		cp $steal "$out/$tag.steal"
		record $round steal fail "$detail"
	fi

	# node-order: the table equals the distances' order, offline and now.
	order_on=$(check_node_order)
	if [ "${order_off%% *}" = ok ] && [ "${order_on%% *}" = ok ]; then
		record $round node-order ok "${order_on#ok }"
	elif [ "${order_on%% *}" = ok ]; then
		record $round node-order fail "while-offline: ${order_off#fail }"
	else
		record $round node-order fail "${order_on#fail }"
	fi

	# node-rebuilds: while offline, at least one per emptied node; once
	# back, as many again.
	ne=$(count $emptied)
	detail="emptied=$(compress $emptied) rebuilds-offline=? rebuilds-online=?"
	case "$rb0$rb1$rb2" in
	*none*) record $round node-rebuilds fail "no node_order file; emptied=$(compress $emptied)" ;;
	*\?*) record $round node-rebuilds fail "no rebuilds line in node_order; emptied=$(compress $emptied)" ;;
	*)
		d1=$((rb1 - rb0)) d2=$((rb2 - rb1))
		detail="emptied=$(compress $emptied) rebuilds-offline=$d1 rebuilds-online=$d2"
		if [ "$ne" -eq 0 ]; then
			record $round node-rebuilds fail "no node was emptied; $detail"
		elif [ $d1 -ge "$ne" ] && [ $d2 -ge "$ne" ]; then
			record $round node-rebuilds ok "$detail"
		elif [ $d1 -lt "$ne" ]; then
			record $round node-rebuilds fail "no rebuild when the last CPU of a node went offline; $detail"
		else
			record $round node-rebuilds fail "no rebuild when the first CPU of a node came back; $detail"
		fi ;;
	esac

	# scheduler: attached throughout, or detached with the kernel's reason.
	dis=$(grep -o 'sched_ext: BPF scheduler "[^"]*" disabled ([^)]*)' "$out/$tag.dmesg" | sed 's/.*disabled (\(.*\))/\1/')
	ndis=$(printf '%s\n' "$dis" | grep -c .)
	kern=$(printf '%s\n' "$dis" | grep -vc -e '^unregistered from user space$' -e '^$')
	errs_sx=$(printf '%s\n' "$dis" | grep -E -v -e '^unregistered from (user space|the main kernel|BPF)$' -e '^runnable task stall$' -e '^$' | sort -u | tr '\n' ';')
	# scx_bpf_error() is the scheduler's own BPF code giving up; the kernel
	# logs where ("sched_ext: <name>: <file>.bpf.c:<line>: ..."). Reported
	# with its message, not failed: e.g. scx_pair, restarted while CPUs are
	# offline, cannot find a CPU's pair. A runtime error of the kernel's
	# (an invalid CPU from a picker, say) still fails.
	bpf_own=$(grep -oE 'sched_ext: [^:]+: [^ :]+\.bpf\.c:[0-9]+: .*' "$out/$tag.dmesg" | head -n1 | cut -c1-200)
	if [ "$errs_sx" = "scx_bpf_error;" ] && [ -n "$bpf_own" ]; then
		errs_sx=
	fi
	stall=$(printf '%s\n' "$dis" | grep -c '^runnable task stall$'); [ "$stall" = 0 ] && stall=
	why=$(sed 's/\x1b\[[0-9;]*m//g' "$out/$tag.sched.log" | grep -m3 -iE 'going (offline|online)|hotplug|EXIT:|exit' | tr '\n' ';' | cut -c1-300)
	flags=$(sed -n 's/.*scheduler flags: \(0x[0-9a-fA-F]*\).*/\1/p' "$out/$tag.sched.log" | head -n1)
	pn=-
	case "$per_node" in *" $s "*)
		pn=no
		[ -n "$flags" ] && [ $(( flags & 64 )) -ne 0 ] && pn=yes ;;
	esac
	mine=0 theirs=0 npk=0
	if [ -r "$out/$tag.picks.after" ]; then
		mine=$(( $(pick_sum $mode "$out/$tag.picks.after") - $(pick_sum $mode "$out/$tag.picks.before") ))
		theirs=$(( $(pick_sum $other "$out/$tag.picks.after") - $(pick_sum $other "$out/$tag.picks.before") ))
		npk=$(( $(node_pick_sum $mode "$out/$tag.picks.after") - $(node_pick_sum $mode "$out/$tag.picks.before") ))
	fi
	detail="sched=$s picker=$mode ops=${ops:-none} attach-s=$t_attach per-node=$pn picks=$mine other-picks=$theirs node-picks=$npk kernel-detaches=$kern state-at-end=$st_end process-alive=$alive"
	[ -n "$dis" ] && detail="$detail reasons=\"$(printf '%s\n' "$dis" | sort | uniq -c | awk '{ c = $1; $1 = ""; printf "%s%s x%d", (n++ ? "; " : ""), substr($0, 2), c }')\""
	[ -n "$why" ] && detail="$detail sched-says=\"$(echo "$why" | tr '"' "'")\""
	[ -n "$bpf_own" ] && detail="$detail bpf-error=\"$(echo "$bpf_own" | tr '"' "'")\""
	# A scheduler that exited before its SIGINT: its last words (the scx
	# project's schedulers re-read the CPU topology when they restart and
	# may fail on a CPU that is offline at that moment).
	if [ $alive = no ]; then
		last=$(sed 's/\x1b\[[0-9;]*m//g' "$out/$tag.sched.log" | grep -E 'Error|error|panicked|unwrap|EXIT' | tail -n 2)
		[ -n "$last" ] || last=$(sed 's/\x1b\[[0-9;]*m//g' "$out/$tag.sched.log" | grep -v '^$' | tail -n 3)
		detail="$detail sched-exited=\"$(echo "$last" | tr '\n"' "; '" | cut -c1-300)\""
	fi
	if [ -z "$ops" ]; then
		record $round scheduler fail "did not attach within $attach_secs s (state $(cat $state)); $detail"
	elif [ -n "$errs_sx" ]; then
		record $round scheduler fail "error exit: $errs_sx $detail"
	elif [ -n "$stall" ] && [ "$stall_ok" != 1 ]; then
		record $round scheduler fail "runnable task stall; $detail"
	elif [ "$st_end" != enabled ] && [ "$kern" -eq 0 ]; then
		record $round scheduler fail "detached without a reason from the kernel; $detail"
	elif [ "$theirs" -ne 0 ]; then
		record $round scheduler fail "the $other picker ran $theirs times; $detail"
	elif [ "$pn" = no ]; then
		record $round scheduler fail "flags '${flags}' lack SCX_OPS_BUILTIN_IDLE_PER_NODE; $detail"
	elif [ "$ndis" -eq 0 ]; then
		record $round scheduler fail "no 'disabled' line at all after SIGINT; $detail"
	else
		record $round scheduler ok "$detail"
	fi

	# shadow: no difference during the round.
	if [ -r "$out/$tag.shadow.after" ]; then
		set -- $(shadow_totals "$out/$tag.shadow.before") $(shadow_totals "$out/$tag.shadow.after")
		calls=$(($3 - $1)) diffs=$(($4 - $2))
		if [ $diffs -eq 0 ]; then
			record $round shadow ok "calls=$calls differences=0"
		else
			record $round shadow fail "calls=$calls differences=$diffs"
		fi
	else
		record $round shadow fail "no $shadow (CONFIG_SCHED_RUST_SHADOW_CHECK)"
	fi

	# kernel-log: the round's log (KCSAN reports are the host's).
	hits=$(grep -E "$bad_re|$rcu_re" "$out/$tag.dmesg" | grep -v 'KCSAN' | grep -v '^.*sched-rust: ')
	kc=$(grep -c 'BUG: KCSAN:' "$out/$tag.dmesg")
	if [ -z "$hits" ]; then
		record $round kernel-log ok "lines=$(wc -l < "$out/$tag.dmesg") kcsan-reports=$kc"
	else
		record $round kernel-log fail "kcsan-reports=$kc first: $(echo "$hits" | head -n 1 | sed 's/^\[[^]]*\] //' | cut -c1-200)"
	fi

	t_round=$(( $(date +%s) - t0 ))
	echo "round=$round sched=$s picker=$mode per-node=$pn node=$node set=$(compress $set_cpus) offline=$(compress $off) cpus-offline=$(count $off) emptied=$(compress $emptied) nodes-emptied=$ne rebuilds-offline=${d1:-?} rebuilds-online=${d2:-?} pause-ds=$pause,$pause2 stalls=${stall:-0} attach-s=$t_attach offline-s=$((t2 - t1)) online-s=$((t3 - t2)) offline-at=${offt#,} online-at=${ont#,} seconds=$t_round" >> "$res"
	d1= d2=
done

# The end: the loads stopped, a quiescent point.
touch "$out/loads.stop"
loads CONT
wait $hb_loop
[ -n "$wl_loop" ] && wait $wl_loop
sleep 1
notback=$(offline_now "$all_cpus")
norun=$(pinned_not_running)
detail="cpus=$(compress $all_cpus) not-back=$(compress $notback) not-running-pinned=${norun:--}"
if [ -z "$notback$norun" ]; then record end online ok "$detail"; else record end online fail "$detail"; fi
m=$(mismatches) nm=$(nomask)
detail="mismatches=${m:-?} cpus-without-mask=${nm:--}"
if [ "${m:-x}" = 0 ] && [ -z "$nm" ]; then record end steal ok "$detail"; else cp $steal "$out/end.steal"; record end steal fail "$detail"; fi
o=$(check_node_order)
record end node-order "${o%% *}" "${o#* }"
rb_end=$(rebuilds)
case "$rebuilds_start$rb_end" in
*none*) record end node-rebuilds fail "no node_order file" ;;
*\?*) record end node-rebuilds fail "no rebuilds line in node_order" ;;
*) ne_all=$(awk '/^round=[0-9]+ sched=/ { for (i = 1; i <= NF; i++) if ($i ~ /^nodes-emptied=/) { split($i, a, "="); s += a[2] } } END { print s + 0 }' "$res")
   d=$((rb_end - rebuilds_start))
   if [ $d -ge $((2 * ne_all)) ]; then
	   record end node-rebuilds ok "rebuilds=$d since-boot=$rb_end nodes-emptied=$ne_all"
   else
	   record end node-rebuilds fail "rebuilds=$d for $ne_all node(s) emptied (want 2 each) since-boot=$rb_end"
   fi ;;
esac
if [ -r $shadow ]; then
	cp $shadow "$out/shadow.end"
	set -- ${shadow_start:-0 0} $(shadow_totals $shadow)
	if [ $(($4 - $2)) -eq 0 ]; then
		record end shadow ok "calls=$(($3 - $1)) differences=0 since-boot-calls=$3 since-boot-differences=$4"
	else
		record end shadow fail "calls=$(($3 - $1)) differences=$(($4 - $2)) since-boot-differences=$4"
	fi
else
	record end shadow fail "no $shadow"
fi
dmesg > "$out/dmesg-all.txt"
hits=$(grep -E "$bad_re|$rcu_re" "$out/dmesg-all.txt" | grep -v 'KCSAN' | grep -v 'sched-rust: ')
if [ -z "$hits" ]; then
	record end kernel-log ok "kcsan-reports=$(grep -c 'BUG: KCSAN:' "$out/dmesg-all.txt")"
else
	record end kernel-log fail "first: $(echo "$hits" | head -n 1 | sed 's/^\[[^]]*\] //' | cut -c1-200)"
fi
hbn=$(cat "$out/hackbench.runs" 2>/dev/null || echo 0)
wln=$(cat "$out/wakeup-latency.runs" 2>/dev/null || echo 0)
nf=$(grep -c . "$out/load-failures.txt")
detail="hackbench-runs=$hbn wakeup-latency-runs=$wln failures=$nf"
[ "$nf" -gt 0 ] && detail="$detail first: $(head -n 1 "$out/load-failures.txt" | cut -c1-200)"
if [ "$nf" -eq 0 ] && [ "$hbn" -gt 0 ] && [ "$wln" -gt 0 ]; then
	record end load ok "$detail"
else
	record end load fail "$detail"
fi
echo done > "$out/hotplug-done"
