// Each method's descriptor, in one table: how it is fitted, how its memory is checked before
// any stage, the arithmetic of its pass (for the thread count), and what it clusters. dispatch,
// check_budget and fit_work (fit.cpp) and the C API's questions about a model read it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/params.h"

namespace kkm {

class FittedModel;
class FitSession;
class MemoryLedger;
struct FitShape;

/// What a fitted model of a method holds, as the model file's body says (serialize.cpp): the
/// loader accepts a body only from a method whose row lists it.
enum class Body : uint32_t {
    dual = 1,              ///< kernel-space centres over training points (DualModel)
    nystrom_centres = 2,   ///< centres in the landmarks' span (NystromModel, Lloyd on G)
    nystrom_features = 4,  ///< centroids of Nystrom features (FeatureModel, kernel distances)
    sketch_features = 8,   ///< centroids of sketched landmark features
    random_features = 16,  ///< centroids of random Fourier features
};

struct MethodTraits {
    Method method;
    /// The fit below dispatch, and its up-front memory check (before any stage starts).
    std::unique_ptr<FittedModel> (*fit)(FitSession& c);
    /// Returns the estimate; throws OUT_OF_MEMORY when it exceeds the budget.
    double (*check_budget)(const FitShape& s, const MemoryLedger& ledger);
    /// Arithmetic of one pass of the fit over n rows whose kernel entries cost per_entry each.
    double (*work)(const Params& p, double n, double per_entry);
    /// It clusters explicit features of m landmarks or random features per row: solver=
    /// applies, and m rows (landmark methods: m <= n) are what its kernel block holds.
    bool features;
    /// It draws its m columns from the training rows (m > n is refused), unlike rff's m
    /// random features.
    bool landmarks;
    /// Its distances of new rows need k(x, x): none with kernel=precomputed (labels only).
    bool needs_diagonal;
    /// The bodies its models are saved as (Body values or-ed).
    uint32_t bodies;
};

/// Whether a fit of `method` saves `body`.
bool saves(Method method, Body body);

/// "method=exact or method=minibatch": the methods whose fits save `body`, for messages.
std::string methods_saving(Body body);

/// The row of `method`.
const MethodTraits& method_traits(Method method);

}  // namespace kkm
