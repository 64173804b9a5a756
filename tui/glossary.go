package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/tui/keys"
)

// glossaryEntry is one term of the glossary and its plain-language meaning.
type glossaryEntry struct{ term, def string }

// glossaryTerms are the terms the screens show, in the order a workshop
// meets them. TestGlossaryCoversTerms checks the list against the terms
// the lessons and screens use.
var glossaryTerms = []glossaryEntry{
	{"privacy unit", "what one guarantee protects: one cell added or removed (central methods), or one client's data (federated, client-level)."},
	{"ε (epsilon)", "the privacy budget: an attacker's odds about one unit can grow at most by e^ε. Smaller is more private."},
	{"ε target, ε spent", "the budget a run plans for, and what its releases have used so far, by the named accountant."},
	{"δ (delta)", "the probability that the ε bound may fail; keep it far below 1/n (n cells)."},
	{"σ, noise multiplier", "the Gaussian noise's standard deviation in units of the clipping bound: noise std = σ·C."},
	{"clipping bound C", "each cell's (or client's) update is scaled down to length at most C, so one unit's influence is bounded."},
	{"sampling rate q", "the probability that a cell is in a step's batch (Poisson sampling); expected batch q·n."},
	{"steps, epochs, stages", "a step is one noisy update; an epoch is about 1/q steps; DCAN trains in two stages (st.1, st.2). Every step spends budget."},
	{"seed", "fixes the random draws (data split, sampling, noise) so a run can be repeated; it is not a secret."},
	{"composition", "using private data several times: the privacy losses add up (basic: the ε's add; accountants add tighter quantities)."},
	{"amplification", "subsampling amplifies privacy: a step on a random batch costs about q times a step on all the data."},
	{"accountant", "the method that turns a noise schedule into (ε, δ): RDP, PLD, GDP or zCDP."},
	{"RDP", "Rényi differential privacy: per-order Rényi divergences that add over steps, converted to (ε, δ) at the end."},
	{"PLD", "privacy loss distribution: the whole distribution of the privacy loss, composed by convolution; near exact."},
	{"GDP", "Gaussian differential privacy: one number μ, the trade-off of telling two Gaussians apart."},
	{"zCDP", "zero-concentrated DP: one number ρ per mechanism, added under composition."},
	{"trade-off curve", "the smallest miss rate β an attacker can reach for each false-alarm rate α."},
	{"DP-SGD", "stochastic gradient descent with per-cell clipping and Gaussian noise on each batch's sum."},
	{"ghost clipping", "a way to get per-example gradient norms without storing each gradient: same clipping, less memory."},
	{"layer range", "the autoencoder layers that get noise (encoder 1–3, decoder 4–6); noising only some gives no guarantee."},
	{"modes: sound, paper, nonprivate", "sound: dpscope's version whose guarantee holds; paper: the method as published; nonprivate: no noise."},
	{"guarantee: formal", "(ε, δ)-DP holds for the release, under the assumptions the engine lists."},
	{"guarantee: conditional", "holds only if stated conditions do (e.g. a trusted aggregator)."},
	{"guarantee: paper-only", "only the paper's own accounting says so; dpscope found a gap."},
	{"guarantee: none", "no privacy claim: no noise, or an unbounded leak."},
	{"federated learning", "clients keep their data and send model updates; not private by itself."},
	{"clients K, rounds, local epochs, split", "federated settings: how many clients, how many averaging rounds, local passes per round, and how cells are split among clients."},
	{"replace-one", "the privacy unit of client-level DP where one client's data is swapped for another's: the sensitivity is 2C, not C."},
	{"DR protocol", "PPML-Omics' decentralised randomisation: clients swap updates before upload; a sum is the same in any order, so it adds no privacy to the sum."},
	{"secure aggregation", "the server sees only the sum of the clients' updates, not each one; the sum (and the model) still leaks without DP."},
	{"DP-MD terms", "DP manifold denoising: D ambient dimension, d intrinsic dimension, n refs reference points, queries to denoise, T iterations, h kernel bandwidth, θ the share of ε spent on the projector."},
	{"DP k-means", "k-means whose centroids are released with noise, so clustering the private embedding stays inside the budget."},
	{"membership inference", "an attack guessing whether a unit was in the training data."},
	{"audit", "running such an attack with planted canaries to get a lower bound on ε that holds at a stated confidence (Steinke et al. 2023); the Audit screen (7) runs one and says what it shows, the Run screen's audit setting adds one to a run, and the Budget screen draws it beside the certified ε (docs/AUDIT.md)."},
	{"canary", "a planted record (here a gradient or a shift of a released sum of the most one cell may move it) that an audit includes with probability ½; the attacker's guesses on the canaries give the audit's bound."},
	{"audit ceiling", "the largest lower bound an audit's design could ever show, every guess right: about ln(m / ln(1/β)) for m canaries at confidence 1 − β, so a one-run audit can refute ε = 1 but never show ε = 8."},
	{"B1", "reference line: PCA(50) + k-means on the data, non-private; what a plain pipeline reaches."},
	{"null, untrained twin", "reference line: the method's untrained model (fl-dp and ppml-omics at the cell unit: their pipeline on noise alone; DP-MD: its queries not denoised; dcan-sound: its private start alone, no DP-SGD step, at the run's own ε, so its line moves with ε); a private result not above it is no better than no learning."},
	{"baseline line", "reference line on a sound run's metrics: the private baseline dppca at the run's own ε, mean of seeds 0–4; only its ARI is shown, no release of it."},
	{"ARI", "adjusted Rand index: agreement of clusters with the true labels; 0 is chance, 1 is perfect. Uses private labels: not covered."},
	{"NMI", "normalised mutual information between clusters and true labels, 0 to 1. Not covered by the guarantee."},
	{"silhouette", "how well separated the clusters of the embedding are, −1 to 1; computed on private data, not covered."},
	{"session tally", "every private release on a data set in this session, composed: exploring costs privacy too."},
	{"ledger", "the record of every private release of a run and its cost, by accountant."},
}

// glossary is the overlay listing glossaryTerms in a scrollable viewport.
type glossary struct {
	c    *Common
	vp   viewport.Model
	open bool
	w, h int
}

func newGlossary(c *Common) *glossary { return &glossary{c: c, vp: viewport.New()} }

// render writes every entry, its term emphasised, wrapped to w.
func (g *glossary) render(w int) string {
	var b strings.Builder
	for _, e := range glossaryTerms {
		b.WriteString("- **" + e.term + "**: " + e.def + "\n")
	}
	return renderMarkdown(b.String(), g.c.Styles, w)
}

// SetSize fits the glossary to the pane area.
func (g *glossary) SetSize(w, h int) {
	g.w, g.h = w, h
	g.vp.SetWidth(max(w, 1))
	g.vp.SetHeight(max(h-1, 1))
	g.vp.SetContent(g.render(max(min(w, 100), 10)))
}

// Update scrolls, or closes on g or esc. It returns whether it used msg.
func (g *glossary) Update(msg tea.KeyPressMsg) tea.Cmd {
	k := g.c.Keys
	if key.Matches(msg, k.Glossary) || key.Matches(msg, k.Cancel) {
		g.open = false
		return nil
	}
	var cmd tea.Cmd
	g.vp, cmd = g.vp.Update(msg)
	return cmd
}

// View renders the title line and the entries.
func (g *glossary) View() string {
	head := g.c.Styles.BoxTitle.Render("Glossary") + g.c.Styles.Muted.Render(" · ↑/↓ pgup/pgdn scroll · g or esc closes")
	return block(truncate(head, g.w)+"\n"+g.vp.View(), g.w, g.h)
}

// ShortHelp returns the glossary's help-bar bindings.
func (g *glossary) ShortHelp() []key.Binding { return g.keyHelp().ShortHelp() }

// FullHelp returns the glossary's help-overlay bindings.
func (g *glossary) FullHelp() [][]key.Binding { return g.keyHelp().FullHelp() }

func (g *glossary) keyHelp() keys.Help {
	k := g.c.Keys
	closeKey := key.NewBinding(key.WithKeys(append(k.Glossary.Keys(), k.Cancel.Keys()...)...), key.WithHelp(k.Glossary.Help().Key+"/esc", "close"))
	return keys.Help{Keys: k, Short: []key.Binding{k.Down, k.PageDown, closeKey}, Full: [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, closeKey}}}
}

// isGlobalKey reports whether msg is a key that works on every screen
// (quit, help, screen changes, ctrl+s saving the session): the glossary
// and the data picker let those through and stay
// open over the next screen.
func isGlobalKey(k keys.KeyMap, msg tea.KeyPressMsg) bool {
	if msg.String() == "ctrl+c" || key.Matches(msg, k.Quit, k.Help, k.NextTab, k.PrevTab, k.Save) {
		return true
	}
	for _, b := range k.Tab {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}

// helpKeys are the bindings the help bar shows: the data picker's or the
// glossary's while one is open, else the shown pane's.
func (m Model) helpKeys() help.KeyMap {
	if m.picker.open {
		return m.picker
	}
	if m.gloss.open {
		return m.gloss
	}
	return m.panes[m.active]
}
