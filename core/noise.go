package core

// NoiseSourceReason is the guarantee reason every private method gives
// about where its DP noise comes from. With secure false the noise is
// reproducible from the seed, which is what replays and teaching need and
// what an attacker who learns the seed needs too: the reason says so and
// names --secure-noise, as Opacus does for its secure_mode (noise from a
// cryptographically secure generator, at the cost of reproducibility).
func NoiseSourceReason(secure bool) string {
	if secure {
		return "noise source: a ChaCha8 generator keyed from the operating system's cryptographic source (--secure-noise): the noise cannot be reproduced from the seed, so a replay gives different noise"
	}
	return "assumption: the seed is secret — the noise is reproducible from the seed (for teaching and replay), so anyone who knows the seed can subtract it; run with --secure-noise (secure_noise = true, as Opacus' secure_mode) for noise from a cryptographic source"
}
