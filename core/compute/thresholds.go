package compute

// GemmThreshold is the size m·n·k of a product below which Sgemm stays in
// gonum's Go kernel even when OpenBLAS is loaded: for smaller products the
// fixed cost of a call into C exceeds what OpenBLAS saves. Measured on a
// 2-core AMD EPYC (Zen 5, AVX-512) with BenchmarkGemmSmall; see
// docs/PERFORMANCE.md, section core/compute.
const GemmThreshold = 0

// GemvThreshold is the size m·n of a matrix-vector product below which Sgemv
// stays in gonum's Go kernel even when OpenBLAS is loaded. Measured with
// BenchmarkGemvSmall; see docs/PERFORMANCE.md.
const GemvThreshold = 0
