#!/bin/sh
# quiet.sh CMD...: run CMD on a quiet machine in a shared sandbox. It
# pauses (SIGSTOP) the processes of other work on the machine — those whose
# working directory is under /work/wt (the helpers' worktrees) or /tmp/fedsc*
# or /tmp/sd*, and any other process above 20 % of a CPU — runs CMD, and
# resumes them (SIGCONT) however CMD ends. The paused work only loses wall
# time. Used for the quiet clauses of docs/PERFORMANCE.md's speed rules.
me=$$
pids=$(top -bn2 -d0.3 | awk '/^top -/{n++} n==2 && $1 ~ /^[0-9]+$/ && $9+0 > 20 && $12 !~ /^(top|sh|bash|quiet.sh)$/ {print $1}')
for p in /proc/[0-9]*; do
	c=$(readlink "$p/cwd" 2>/dev/null)
	case "$c" in /work/wt/*|/tmp/fedsc*|/tmp/sd*) pids="$pids ${p#/proc/}" ;; esac
done
pids=$(echo $pids | tr ' ' '\n' | sort -u | grep -v "^$me\$")
echo "stopping: $(for p in $pids; do ps -o comm= -p "$p"; done | tr '\n' ' ')" >&2
for p in $pids; do kill -STOP "$p" 2>/dev/null; done
trap 'for p in $pids; do kill -CONT "$p" 2>/dev/null; done' EXIT INT TERM
sleep 2
uptime >&2
"$@"
uptime >&2
