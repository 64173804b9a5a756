package compute

import "syscall"

// osYield gives the thread's core to another thread that waits for it
// (sched_yield), as OpenBLAS's idle workers do between polls: on a
// machine with fewer free cores than threads, a poller would otherwise
// keep the core from the thread doing the work until the kernel
// preempts it.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
