// Package methodtest holds the tests every registered method must pass
// through core's public API alone: a run with a target ε reaches the steps
// it planned within that target, preprocessing settings reach the engine,
// an unreachable ε patch is rejected, and secure noise changes the stream.
// It has no code of its own; its tests import every method package.
package methodtest
