#include "features/landmarks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "core/blocking.h"
#include "core/parallel.h"
#include "core/registry.h"

namespace kkm {

KernelBasis landmark_basis(const LandmarkContext& ctx, const std::vector<int64_t>& idx) {
    return training_basis_over(ctx.kernel, ctx.X, *ctx.comm, ctx.part, idx);
}

Matrix kernel_columns(const LandmarkContext& ctx, const std::vector<int64_t>& idx) {
    const KernelBasis basis = landmark_basis(ctx, idx);
    const int64_t n = ctx.X.rows, c = static_cast<int64_t>(idx.size());
    Matrix out(n, c);
    struct Scratch {
        Matrix rows;
        Kernel::Scratch kernel;
    };
    PerThread<Scratch> scratch(ctx.threads);
    parallel_blocks(ctx.threads, block_count(n, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, n - begin);
        Scratch& s = scratch.local();
        copy_into(ctx.X.slice(begin, count), s.rows);
        basis.evaluate(s.rows.view(), out.row(begin), c, &s.kernel);
    });
    return out;
}

std::vector<int64_t> uniform_landmarks(int64_t n, int64_t m, Rng& rng) {
    std::vector<int64_t> pool(static_cast<size_t>(n));
    std::iota(pool.begin(), pool.end(), int64_t{0});
    for (int64_t i = 0; i < m; ++i) {
        const int64_t j = i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - i)));
        std::swap(pool[static_cast<size_t>(i)], pool[static_cast<size_t>(j)]);
    }
    pool.resize(static_cast<size_t>(m));
    std::sort(pool.begin(), pool.end());
    return pool;
}

double uniform_footprint(const SamplerShape& s) {
    return 8 * s.n;  // the index pool
}

namespace {

std::vector<int64_t> choose_uniform(const LandmarkContext&, int64_t n, int64_t m, double, Rng& rng) {
    return uniform_landmarks(n, m, rng);
}

std::vector<int64_t> choose_rls(const LandmarkContext& ctx, int64_t, int64_t m, double lambda, Rng& rng) {
    return rls_landmarks(ctx, m, lambda, rng);
}

std::vector<int64_t> choose_kmeanspp(const LandmarkContext& ctx, int64_t, int64_t m, double, Rng& rng) {
    return kmeanspp_landmarks(ctx, m, rng);
}

constexpr std::array<SamplerTraits, 3> kSamplers{{
    // sampling, reads_rows, ridge, choose, footprint
    {Sampling::uniform, false, false, choose_uniform, uniform_footprint},
    {Sampling::rls, true, true, choose_rls, rls_footprint},
    {Sampling::kmeanspp, true, false, choose_kmeanspp, kmeanspp_footprint},
}};

}  // namespace

const SamplerTraits& sampler_traits(Sampling sampling) {
    return registry_row(kSamplers, &SamplerTraits::sampling, sampling, "landmark sampler");
}

double ridge_lambda(const Params& p, int64_t n) {
    if (!sampler_traits(p.sampling).ridge) return 0;
    return p.rls_lambda > 0 ? p.rls_lambda : std::sqrt(static_cast<double>(n));
}

}  // namespace kkm
