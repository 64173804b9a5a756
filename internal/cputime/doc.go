// Package cputime reads the CPU time the process has used, which the
// benchmarks report beside wall time because the shared two-core machine
// is often oversubscribed. It imports none of dpscope's packages.
package cputime
