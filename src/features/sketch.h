// Randomized sketches of landmark kernel rows (Yin et al. 2022, Algorithm 1 and Examples 1–3):
// features(x) = S · k_Q(x) for m uniformly sampled points Q and S:
//  - subgaussian: S_ij = σ(i)/√m with probability 1/√n, else 0 (random signs σ), sparse;
//  - ros: S = D·A, D diagonal random ±1, A the normalised Hadamard matrix (m padded to the
//    next power of two p, so features have p components), applied by an in-place fast
//    Walsh–Hadamard transform, never as a dense matrix;
//  - gaussian: dense i.i.d. N(0, 1/m);
//  - identity: S = I (the paper's "Nyström (Ours)": raw kernel rows, no whitening).
#pragma once

#include <cstdint>
#include <memory>

#include "core/archive.h"
#include "core/params.h"
#include "core/rng.h"
#include "features/feature_map.h"

namespace kkm {

/// The sketch S as a Projection on kernel rows of length m; n is the number of training rows
/// (the sub-Gaussian density is 1/√n). All randomness comes from rng.
std::unique_ptr<Projection> make_sketch(SketchKind kind, int64_t m, int64_t n, Rng& rng);

/// Writes any projection of a landmark map (dense, identity, ros, subgaussian) to w.
void save_projection(const Projection& projection, Writer& w);

/// Reads a projection written by save_projection, checking that it maps kernel rows of
/// length in_dim and that every stored index lies in range; throws KKM_ERR_FORMAT otherwise.
std::unique_ptr<Projection> load_projection(Reader& r, int64_t in_dim);

/// The dense matrix a projection applies, as out_dim × in_dim (row i, column j = S_ij), for
/// tests and small sizes.
Matrix dense_matrix(const Projection& projection);

}  // namespace kkm
