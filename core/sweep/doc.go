// Package sweep runs a grid of configurations — methods × modes × ε ×
// option values × seeds — a few at a time, and summarises each point of
// the trade-off curve as the mean and standard deviation over seeds.
//
// The command line (`dpscope sweep`) and the interface's trade-off view
// both use it; neither knows any method by name.
package sweep
