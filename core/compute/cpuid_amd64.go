//go:build !purego

package compute

// cpuid runs the CPUID instruction for leaf and sub-leaf sub.
//
//go:noescape
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// amdFamily19h reports whether the CPU is an AMD of family 19h: Zen 3,
// whose CPUs have AVX2 and no AVX-512, or Zen 4. There the AVX2 kernel's
// dense products beat the sparse path (rule G28, docs/PERFORMANCE.md).
var amdFamily19h = func() bool {
	_, b, c, d := cpuid(0, 0)
	// "AuthenticAMD", in the order EBX, EDX, ECX.
	if b != 0x68747541 || d != 0x69746e65 || c != 0x444d4163 {
		return false
	}
	a, _, _, _ := cpuid(1, 0)
	return cpuFamily(a) == 0x19
}()

// cpuFamily returns the family of CPUID leaf 1's EAX signature: the base
// family, plus the extended family when the base is 0xF.
func cpuFamily(sig uint32) uint32 {
	f := sig >> 8 & 0xF
	if f == 0xF {
		f += sig >> 20 & 0xFF
	}
	return f
}
