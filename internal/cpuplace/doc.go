// Package cpuplace measures how far apart, in cache-coherence terms, the
// host has placed two of the CPUs this process may run on: the round trip
// of one cache line between threads pinned to them.
//
// On a virtual machine the host may move its vCPUs between cores of one
// chiplet, of two chiplets, or of two sockets, within seconds; the two-core
// products of DP-SGD slow down when the round trip is long
// (docs/PERFORMANCE.md, "The slow state is where the host puts the two
// vCPUs"). Benchmarks report the round trip beside their rates so that a
// figure can be read with the placement it was taken in.
package cpuplace
