package compute

// GemmThreshold is the size m·n·k of a product below which Sgemm stays in
// gonum's Go kernel even when OpenBLAS is loaded, because the fixed cost of a
// call into OpenBLAS (about 170 ns through purego, against 20 ns for gonum on
// a 1×1×1 product) exceeds what its kernel saves. Square products cross over
// at n = 6: 4×4×4 takes 120 ns in Go and 195 ns in OpenBLAS, 6×6×6 about
// 210 ns in both, 8×8×8 310 ns in Go and 210 ns in OpenBLAS. Measured on
// 2 cores of an AMD EPYC (Zen 5, AVX-512) with BenchmarkGemmSmall and
// BenchmarkCallOverhead; see docs/PERFORMANCE.md, section core/compute.
const GemmThreshold = 6 * 6 * 6

// GemvThreshold is the size m·n of a matrix-vector product below which
// Sgemv stays in gonum's Go kernel even when OpenBLAS is loaded. Square
// matrices cross over between n = 32 (190 ns in Go, 200 ns in OpenBLAS) and
// n = 64 (470-550 ns in Go, 250-310 ns in OpenBLAS); measured with
// BenchmarkGemvSmall on the same machine.
const GemvThreshold = 2048
