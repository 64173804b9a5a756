// Package archtest holds no code, only a test that enforces dpscope's
// dependency direction (ARCHITECTURE.md): main → tui → core →
// {accountant, datasets}; datasets → core/compute only; accountant imports
// nothing of dpscope; nothing below tui imports a terminal library; tui and
// internal/cli import no method package (they know methods through
// core.Methods()).
package archtest
