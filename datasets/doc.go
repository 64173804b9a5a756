// Package datasets loads, checks, preprocesses and simulates single-cell
// RNA-seq expression data.
//
// Raw values are kept sparse (CSR, cells × genes) until gene selection;
// only the selected genes become a dense float32 matrix for training.
// Loaders report bad input as errors naming the file, the line and what is
// wrong, and never panic. Generators are pure functions of a seed.
//
// The package imports nothing of dpscope but core/compute.
package datasets
