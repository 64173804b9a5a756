package tui

import (
	"fmt"
	"path"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/core"
)

// experiment is the live experiment a lesson starts: the settings it
// changes and the screen it opens. The teacher then starts the run (s on
// the Run screen, w on the Trade-off screen) and can change any knob.
type experiment struct {
	tab  int                       // the screen to show
	desc string                    // what the key does, shown under the lesson
	set  func(runParams) runParams // the lesson's settings, from the current ones
}

// startsRun are the lessons whose experiment starts its run at once: the
// audit lesson's figure is the run's outcome, not a setting to look at.
var startsRun = map[string]bool{"membership-audit": true}

// lessonExperimentMsg asks the root to adopt a lesson's settings in every
// pane (the Run pane included) and to show the lesson's screen.
type lessonExperimentMsg struct {
	params runParams
	tab    int
	what   string
	start  bool // start the run with params (startsRun)
}

// lessonSlug is a lesson file's name without its number and extension:
// "lessons/03-composition.md" → "composition".
func lessonSlug(name string) string {
	b := strings.TrimSuffix(path.Base(name), ".md")
	if _, rest, ok := strings.Cut(b, "-"); ok {
		return rest
	}
	return b
}

// pick switches pr to the first variant (in the registry's order) that
// ok accepts, and keeps pr's method when none does. Lessons choose methods
// by what they do (their family, mode and the settings they read), never
// by name, so a method registered later takes part in them as well.
func pick(pr runParams, ok func(Variant) bool) runParams {
	for i, v := range variants() {
		if ok(v) {
			pr.SetVariant(i)
			return pr
		}
	}
	return pr
}

// soundDCAN picks the start screen's method (the registry's default
// entry) in its sound mode, the DP-SGD run the lessons watch learn; else
// the first sound DP-SGD method.
func soundDCAN(pr runParams) runParams {
	if m, _, ok := core.DefaultEntry(); ok {
		if q := pick(pr, func(v Variant) bool { return v.Method == m.Name && v.Mode == core.ModeSound }); q.V().Method == m.Name {
			return q
		}
	}
	return pick(pr, func(v Variant) bool { return v.Family() == familyDPSGD && v.Mode == core.ModeSound })
}

// poissonNeeds are the settings a Poisson-sampled DP-SGD method reads: the
// accounting lessons' figures (σ, q, C, steps) describe such a run.
const poissonNeeds = core.NeedsSampleRate | core.NeedsClip | core.NeedsSigma

// usesPoisson reports whether pr's method reads σ, q and C.
func usesPoisson(pr runParams) bool { return pr.V().Desc().Needs.Has(poissonNeeds) }

// poissonDPSGD picks a sound Poisson-sampled DP-SGD method (the paper
// network's sound DP-DCAN where registered), so that the run uses the σ,
// q and C the accounting lessons talk about; the redesigned DP-DCAN trains
// full batch with its own clip and ignores them. It keeps pr's method
// when it already reads them, or when none is registered.
func poissonDPSGD(pr runParams) runParams {
	if usesPoisson(pr) && pr.V().Mode == core.ModeSound {
		return pr
	}
	return pick(pr, func(v Variant) bool {
		return v.Family() == familyDPSGD && v.Mode == core.ModeSound && v.Desc().Needs.Has(poissonNeeds)
	})
}

// paperLayers picks a DP-SGD method's paper mode that noises a range of
// layers: a published claim the partial-layer lessons take apart.
func paperLayers(pr runParams) runParams {
	return pick(pr, func(v Variant) bool {
		return v.Family() == familyDPSGD && v.Mode == core.ModePaper && v.Desc().Needs.Has(core.NeedsLayers)
	})
}

// clientLevelDP picks a federated method's paper mode with noise: the
// client-level DP of the federated lesson.
func clientLevelDP(pr runParams) runParams {
	return pick(pr, func(v Variant) bool {
		return v.Family() == familyFederated && v.Mode == core.ModePaper
	})
}

// resolve keeps ε and σ paired as the Run pane does before a run: for a
// DP-SGD variant σ is the method's own calibration for the target ε over
// its plan; when no σ reaches it, σ is kept and ε is set to what that σ
// gives.
func resolve(pr runParams) runParams {
	if !pr.dpsgd() {
		return pr
	}
	if c, err := pr.calibrate(false); err == nil {
		pr.Sigma = c.Sigma
		return pr
	}
	if c, err := pr.calibrate(true); err == nil {
		pr.Epsilon = round3(c.Projected[0].Epsilon)
	}
	return pr
}

// experiments are the lessons' experiments, by lesson slug. Every lesson
// has one (TestEveryLessonHasAnExperiment).
var experiments = map[string]experiment{
	"epsilon-odds": {TabRun, "sound DP-DCAN at ε = 1 on the Run screen; s starts it, then try ε = 8", func(pr runParams) runParams {
		pr = soundDCAN(pr)
		pr.Epsilon = 1
		return resolve(pr)
	}},
	"delta": {TabBudget, "δ = 1e-6 (ten times smaller) on the Budget screen: compare ε and σ", func(pr runParams) runParams {
		pr = poissonDPSGD(pr)
		pr.Delta = 1e-6
		return resolve(pr)
	}},
	"composition": {TabBudget, "twice the epochs at the same σ on the Budget screen: see ε grow", func(pr runParams) runParams {
		pr = poissonDPSGD(pr)
		pr.Epochs = [2]int{min(2*max(pr.Epochs[0], 1), 500), min(2*pr.Epochs[1], 500)}
		if c, err := pr.calibrate(true); err == nil && c.Projected[0].Epsilon > 0 {
			pr.Epsilon = round3(c.Projected[0].Epsilon)
		}
		return pr
	}},
	"sampling": {TabRun, "q = 0.01 with σ solved for the same ε on the Run screen; s starts it", func(pr runParams) runParams {
		pr = poissonDPSGD(pr)
		pr.SampleRate = 0.01
		return resolve(pr)
	}},
	"clipping": {TabRun, "tight clipping C = 0.01, Poisson-sampled sound DP-SGD; s starts it, compare with C = 0.1", func(pr runParams) runParams {
		pr = poissonDPSGD(pr)
		pr.Clip = 0.01
		return resolve(pr)
	}},
	"noise-vs-batch": {TabRun, "large batches q = 0.5 with σ solved for the same ε; s starts it", func(pr runParams) runParams {
		pr = poissonDPSGD(pr)
		pr.SampleRate = 0.5
		return resolve(pr)
	}},
	"rdp-pld": {TabBudget, "the PLD accountant on the Budget screen: RDP and PLD side by side", func(pr runParams) runParams {
		pr = poissonDPSGD(pr)
		pr.Accountant = "pld"
		return resolve(pr)
	}},
	"tradeoff-curve": {TabTradeoff, "the Trade-off screen with sound DP-DCAN: w sweeps ε", func(pr runParams) runParams {
		return resolve(soundDCAN(pr))
	}},
	"paper-vs-sound": {TabRun, "DP-DCAN as published (layers 1–3) on the Run screen: see its status, s starts it", func(pr runParams) runParams {
		pr = paperLayers(pr)
		pr.Layers = core.LayerRange{First: 1, Last: 3}
		return resolve(pr)
	}},
	"partial-layers": {TabRun, "DP-DCAN paper with noise on layers 1–2 only; s starts it", func(pr runParams) runParams {
		pr = paperLayers(pr)
		pr.Layers = core.LayerRange{First: 1, Last: 2}
		return resolve(pr)
	}},
	"federated": {TabRun, "FL-DP (client-level DP) on the Run screen; s starts it", func(pr runParams) runParams {
		return clientLevelDP(pr)
	}},
	"membership-audit": {TabAudit, "an audited run of DP-DCAN as published at ε = 1, noise on layers 4–6 only (a noise-free encoder); it starts now, and the Audit screen (7) shows the attack when it ends", func(pr runParams) runParams {
		pr = paperLayers(pr)
		pr.Layers = core.LayerRange{First: 4, Last: numLayers}
		pr.Epsilon, pr.Audit = 1, true
		return resolve(pr)
	}},
	"live-metrics": {TabRun, "sound DP-DCAN on the Run screen: watch ARI beside B1 and the null; s starts it", func(pr runParams) runParams {
		return resolve(soundDCAN(pr))
	}},
	"choosing-budget": {TabPlanner, "ε = 1, δ = 1e-5 in the Run settings, and the Planner to find σ", func(pr runParams) runParams {
		pr = soundDCAN(pr)
		pr.Epsilon, pr.Delta = 1, 1e-5
		return resolve(pr)
	}},
}

// tryCmd builds the lesson's settings off the event loop (σ solves take
// tens of RDP evaluations) and asks the root to adopt them.
func (p *learnPane) tryCmd() tea.Cmd {
	if len(p.lessons) == 0 {
		return nil
	}
	l := p.lessons[p.index]
	ex, ok := experiments[l.slug]
	if !ok {
		return statusCmd("lesson " + l.title + " has no experiment")
	}
	pr := p.params
	what := fmt.Sprintf("lesson %d: %s", p.index+1, ex.desc)
	return func() tea.Msg {
		return lessonExperimentMsg{params: ex.set(pr), tab: ex.tab, what: what, start: startsRun[l.slug]}
	}
}

// applyLesson adopts a lesson's settings: the Run pane takes them as if
// typed (its form, method charts and projection follow), every pane gets
// them as a ParamsMsg, and the lesson's screen is shown. During a run it
// refuses: changing settings under a run would be a live patch, not a
// lesson's set-up.
func (m *Model) applyLesson(msg lessonExperimentMsg) tea.Cmd {
	if m.c.RunState.Active() {
		m.status, m.errored = "a run is going: stop it (x on the Run screen) before a lesson's experiment", true
		return nil
	}
	cmd := m.setRunParams(msg.params)
	m.status, m.errored = msg.what, false
	if msg.start {
		cmd = tea.Batch(cmd, m.startRun(m.StartConfig()))
	}
	return tea.Batch(cmd, m.setTab(msg.tab))
}
