// Each method's descriptor, in one table: how it is fitted, how its memory is checked before
// any stage, the arithmetic of its pass (for the thread count), and what it clusters. dispatch,
// check_budget and fit_work (fit.cpp) and the C API's questions about a model read it.
#pragma once

#include <cstdint>
#include <memory>

#include "core/params.h"

namespace kkm {

class FittedModel;
class FitSession;

struct MethodTraits {
    Method method;
    /// The fit below dispatch, and its up-front memory check (before any stage starts).
    std::unique_ptr<FittedModel> (*fit)(FitSession& c);
    void (*check_budget)(FitSession& c);
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
};

/// The row of `method`.
const MethodTraits& method_traits(Method method);

}  // namespace kkm
