# Sourced by scripts/bench-stream and scripts/bench-agg: the time the BPF
# programs of a tracer take per run, from the kernel's statistics
# (kernel.bpf_stats_enabled), read from the fdinfo of the tracer's program
# descriptors (run_time_ns and run_cnt), so that no bpftool is needed.

# bpf_stats_on enables the statistics, keeping the old setting for
# bpf_stats_restore; it fails where they cannot be enabled.
bpf_stats_on() {
	local f=/proc/sys/kernel/bpf_stats_enabled
	bpf_stats_old=''
	[ -w "$f" ] || return 1
	bpf_stats_old=$(cat "$f") || return 1
	echo 1 >"$f" 2>/dev/null || { bpf_stats_old=''; return 1; }
}

# bpf_stats_restore puts back the setting bpf_stats_on found.
bpf_stats_restore() {
	[ -z "${bpf_stats_old:-}" ] || echo "$bpf_stats_old" >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null || true
	bpf_stats_old=''
}

# bpf_ns PID prints the nanoseconds per run of the BPF programs that PID
# and its children hold, all together (the time they ran over the times
# they ran, each program counted once), or n/a when none ran.
bpf_ns() {
	local p fd
	for p in "$1" $(pgrep -P "$1" 2>/dev/null || true); do
		for fd in /proc/"$p"/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = anon_inode:bpf-prog ] || continue
			cat "/proc/$p/fdinfo/${fd##*/}" 2>/dev/null || true
		done
	done | awk '
		$1 == "prog_id:" { id = $2 }
		$1 == "run_time_ns:" { t[id] = $2 }
		$1 == "run_cnt:" { c[id] = $2 }
		END {
			for (i in c) { tt += t[i]; cc += c[i] }
			if (cc > 0) printf "%.0f\n", tt / cc; else print "n/a"
		}'
}
