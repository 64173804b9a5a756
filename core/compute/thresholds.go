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

// DgemmThreshold is GemmThreshold's counterpart for Dgemm (float64): the
// size m·n·k below which Dgemm stays in gonum's Go kernel. Square products
// cross over at n = 6, as in float32: 5×5×5 takes 120 ns in Go and 183 ns in
// OpenBLAS, 6×6×6 211 and 192 ns, 8×8×8 308 and 202 ns. Measured with
// BenchmarkDgemmSmall on the machine of GemmThreshold. Dsyrk uses the same
// threshold on n·n·k.
const DgemmThreshold = 6 * 6 * 6

// DgemvThreshold is the size m·n of a float64 matrix-vector product below
// which Dgemv stays in gonum's Go kernel. Unlike Sgemv, OpenBLAS's dgemv_
// does not pay for in-cache matrices: square n = 32 takes 103-111 ns in Go
// and 193 ns in OpenBLAS, n = 128 1.5-2.1 µs and 4.1-5.0 µs, n = 256 6.1-6.7
// and 7.7-8.5 µs (its threading costs more than it saves). From n = 1024
// (8 MiB, out of L2) OpenBLAS wins by 1.0-1.3×, at n = 2048 by 1.3-1.7×
// (BenchmarkDgemvSmall), hence 1024·1024.
const DgemvThreshold = 1024 * 1024
