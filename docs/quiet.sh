#!/bin/sh
# quiet.sh CMD...: run CMD on a quiet machine in a shared sandbox. It
# pauses (SIGSTOP) the processes of other work on the machine — those whose
# working directory is under /work/wt (the helpers' worktrees) or /tmp/fedsc*
# or /tmp/sd*, and any other process above 20 % of a CPU — runs CMD, and
# resumes them (SIGCONT) however CMD ends. The paused work only loses wall
# time. Used for the quiet clauses of docs/PERFORMANCE.md's speed rules.
#
# While CMD runs, a watcher pauses every 0.5 s the processes of that work
# that started after the pause began (a helper's next build or test): once
# such a process held a core through a whole measurement, and its figures
# read as a machine running at one core's speed.
me=$$
stopped=$(mktemp)
pids=$(top -bn2 -d0.3 | awk '/^top -/{n++} n==2 && $1 ~ /^[0-9]+$/ && $9+0 > 20 && $12 !~ /^(top|sh|bash|quiet.sh)$/ {print $1}')
# helpers lists the processes of the helpers' work not paused yet (three
# processes a call: a readlink per process cost a fifth of the machine).
helpers() {
	ls -l /proc/[0-9]*/cwd 2>/dev/null |
		awk -v me="$me" '$NF ~ /^\/(work\/wt\/|tmp\/fedsc|tmp\/sd)/ { split($(NF-2), f, "/"); if (f[3] != me) print f[3] }' |
		grep -v -x -f "$stopped"
}
pause() {
	for p in "$@"; do
		kill -STOP "$p" 2>/dev/null && echo "$p" >>"$stopped"
	done
}
pause $(echo $pids $(helpers) | tr ' ' '\n' | sort -u | grep -v "^$me\$")
echo "stopping: $(for p in $(cat "$stopped"); do ps -o comm= -p "$p"; done | tr '\n' ' ')" >&2
(while :; do pause $(helpers); sleep 0.5; done) &
watcher=$!
resume() {
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	for p in $(cat "$stopped"); do kill -CONT "$p" 2>/dev/null; done
	rm -f "$stopped"
}
trap resume EXIT INT TERM
sleep 2
uptime >&2
"$@"
uptime >&2
