// Package nn provides the float32 neural-network pieces dpscope trains: dense
// layers on core/compute, activations, the DP-DCAN autoencoder and its plain
// MSE variant, the losses of docs/METHODS.md §1 (ZINB, MSE, per-cell negative
// cosine, DEC's KL divergence with Student-t assignments) and the optimizers
// Adam, Adadelta and SGD.
//
// # Layout
//
// A [Net] keeps every parameter in one flat slice (Params) and every gradient
// in a parallel one (Grads), layer after layer in the order of the layer
// numbers, weights before biases. A [Dense] layer's W, B, DW and DB are views
// into those slices, so an optimizer updates the whole network with one loop,
// and the parameters of a contiguous range of layer numbers are one
// contiguous sub-slice (see [Net.ParamRange]).
//
// A dense layer computes, for a batch X with one sample per row,
//
//	Z = X·W + 1·bᵀ,  Y = act(Z)
//
// with W stored In×Out. Backpropagation is split in two so that DP-SGD can
// rescale per-sample signals between the halves (ghost clipping):
//
//  1. the backward pass computes, for every layer, the signal G = ∂L/∂Z (one
//     row per sample) and the input gradient ∂L/∂X = G·Wᵀ, with no weight
//     gradient;
//  2. [Net.AccumulateGrads] then forms DW = Xᵀ·G and DB = Gᵀ·1, one GEMM and
//     one GEMV per layer.
//
// Losses are per sample: the batch loss is Σ_i L_i, and the gradient written
// into a signal buffer for row i is ∂L_i/∂(row i). Non-private training
// divides the summed gradient by the batch size; DP-SGD clips each sample's
// share first.
//
// # Numerics
//
// Weights, activations and gradients are float32; losses are accumulated in
// float64. Buffers are sized once, for at most MaxRows rows, when a network
// is built; Forward, Backward, the losses and the optimizer steps allocate
// nothing.
//
// # Randomness
//
// Initialisation takes a seed and draws from math/rand/v2's PCG; nothing in
// the package uses the global generator.
//
// # Errors
//
// Shape mismatches between a network and the matrices given to it are
// programmer errors and panic with an error wrapping [compute.ErrShape].
// Invalid configurations return errors from the constructors. Losses return
// their value as computed: a caller that needs finiteness checks it with
// [CheckFinite], which returns an error wrapping [ErrNonFinite].
package nn
