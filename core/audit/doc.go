// Package audit turns a membership game on canaries into an empirical lower
// bound on ε: the one-run audit of Steinke, Nasr and Jagielski, "Privacy
// Auditing with One (1) Training Run" (NeurIPS 2023,
// https://arxiv.org/abs/2305.08846).
//
// The game: m canaries, each included in the training run independently with
// probability ½; after one run an attacker scores every canary, guesses "in"
// for the k₊ highest scores and "out" for the k₋ lowest and abstains on the
// rest. Of its r = k₊ + k₋ guesses, v are correct. If the run is (ε, δ)-DP
// with respect to each canary, v is stochastically dominated by
// Binomial(r, e^ε/(1+e^ε)) up to a δ term (the paper's Theorem 5.2), so
// every ε whose tail probability falls below β is refuted at confidence
// 1 − β; [EpsilonLowerBound] returns the largest refuted ε.
//
// The bound can never exceed its ceiling, the bound for r correct guesses
// out of r (about ln(r / ln(1/β)), [Ceiling]): with 100 guesses at 95 %
// confidence no audit can show more than ε ≈ 3.5, whatever the run does.
// dpscope reports the ceiling beside every bound (docs/AUDIT.md).
//
// Canaries: [GradientCanaries] inserts Dirac gradient canaries (the white-box
// setting of Nasr et al. 2021/2023 and of Steinke et al. §6: a canary is a
// gradient of norm C on one coordinate, so no cell is needed) into a
// DP-SGD run by wrapping its optimizer. Adding the canaries' gradients after
// the noise rather than before it is the same mechanism, since the noise is
// additive and independent of them.
//
// [InputCanaries] are the black-box setting's canaries: synthetic cells
// (at most 10 % of the cells, [MaxInputCanaries]), each on a signature of
// rare genes of its own ([RarestGenes]); the method appends the included
// ones to its training data and scores every canary from what it
// releases.
//
// The package imports nothing of dpscope but core/nn (for the optimizer
// interface) and never a terminal package.
package audit
