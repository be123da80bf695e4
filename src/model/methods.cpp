#include "model/methods.h"

#include <algorithm>
#include <array>

#include "core/enum_text.h"
#include "core/registry.h"
#include "model/fit_common.h"

namespace kkm {
namespace {

// Kernel entries times (cost per entry + k): the cost to compute an entry, and k per entry and
// Lloyd iteration to use it.

/// exact: n² entries, which its Lloyd touches once (+1).
double exact_work(const Params&, double n, double per_entry) {
    return n * n * (per_entry + 1.0);
}

/// minibatch: n times the support bound k(τ + b) (n² without one: τ = 0).
double minibatch_work(const Params& p, double n, double per_entry) {
    const auto k = static_cast<double>(p.k);
    const double support = k * static_cast<double>(p.tau + p.batch_size);
    return n * (p.tau > 0 ? std::min(n, support) : n) * (per_entry + k);
}

/// The landmark and feature methods: n·m entries (m > n, refused later by the landmark
/// methods, counts n).
double landmark_work(const Params& p, double n, double per_entry) {
    const auto rows = static_cast<int64_t>(n);
    const bool too_many = p.m > rows && method_traits(p.method).landmarks;
    const auto m = static_cast<double>(too_many ? rows : resolve_landmarks(p, rows));
    return n * m * (per_entry + static_cast<double>(p.k));
}

constexpr uint32_t bodies(Body a, Body b = Body{0}) {
    return static_cast<uint32_t>(a) | static_cast<uint32_t>(b);
}

const std::array<MethodTraits, 5> kMethods{{
    // method, fit, check_budget, work, features, landmarks, needs_diagonal, bodies
    {Method::exact, fit_exact, check_exact_budget, exact_work, false, false, true, bodies(Body::dual)},
    {Method::nystrom, fit_nystrom, check_nystrom_budget, landmark_work, true, true, true,
     bodies(Body::nystrom_centres, Body::nystrom_features)},
    {Method::sketch, fit_sketch, check_sketch_budget, landmark_work, true, true, false, bodies(Body::sketch_features)},
    {Method::rff, fit_rff, check_rff_budget, landmark_work, true, false, false, bodies(Body::random_features)},
    {Method::minibatch, fit_minibatch, check_minibatch_budget, minibatch_work, false, false, true, bodies(Body::dual)},
}};

}  // namespace

const MethodTraits& method_traits(Method method) {
    return registry_row(kMethods, &MethodTraits::method, method, "method");
}

bool saves(Method method, Body body) {
    return (method_traits(method).bodies & static_cast<uint32_t>(body)) != 0;
}

std::string methods_saving(Body body) {
    std::string out;
    for (const MethodTraits& t : kMethods) {
        if (!saves(t.method, body)) continue;
        out += (out.empty() ? "method=" : " or method=") + std::string(to_text(t.method));
    }
    return out;
}

}  // namespace kkm
