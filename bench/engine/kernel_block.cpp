// The kernel stage's compute rate: K(X, L) for X n×d against m landmark rows (rbf), through
// the engine on each path this CPU supports, and through BLIS sgemm + the elementwise pass
// (what the library did before the engine) in the same process. Row blocks of 256 on all
// threads, as a fit runs them. Prints GFLOP/s (2·n·m·d per evaluation) and ratios.
//   kkm_bench_kernel [n d m threads]      default: 60000 784 1000 (Fashion-MNIST P1), all cores
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "core/linalg.h"
#include "core/matrix.h"
#include "core/parallel.h"
#include "engine/engine.h"
#include "kernels/elementwise.h"
#include "kernels/kernel.h"

namespace {

using kkm::ConstMatrix;
using kkm::Matrix;

constexpr int64_t kRows = 256;

Matrix random_rows(int64_t n, int64_t d, unsigned seed) {
    Matrix X(n, d);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int64_t i = 0; i < n * d; ++i) X.values[static_cast<size_t>(i)] = u(gen);
    return X;
}

template <class Fn>
double best_seconds(int repeats, Fn&& fn) {
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const int64_t n = argc > 1 ? std::atoll(argv[1]) : 60000, d = argc > 2 ? std::atoll(argv[2]) : 784;
    const int64_t m = argc > 3 ? std::atoll(argv[3]) : 1000;
    const int threads = argc > 4 ? std::atoi(argv[4]) : omp_get_num_procs();
    const Matrix X = random_rows(n, d, 1), L = random_rows(m, d, 2);
    Matrix out(n, m);
    const double gamma = 1.0 / d, flops = 2.0 * static_cast<double>(n) * m * d;
    std::printf("K(X, L): n=%lld d=%lld m=%lld, %d threads\n", static_cast<long long>(n), static_cast<long long>(d),
                static_cast<long long>(m), threads);

    const kkm::Kernel reference(kkm::KernelType::rbf, gamma, 3, 1.0, kkm::engine::Isa::portable);
    const std::vector<float> ln = [&] {
        std::vector<float> v(static_cast<size_t>(m));
        for (int64_t j = 0; j < m; ++j) {
            float s = 0;
            for (int64_t t = 0; t < d; ++t) s += L.row(j)[t] * L.row(j)[t];
            v[static_cast<size_t>(j)] = s;
        }
        return v;
    }();
    const double blis = best_seconds(3, [&] {
        kkm::parallel_blocks(threads, kkm::block_count(n, kRows), [&](int64_t b) {
            const int64_t begin = b * kRows, count = std::min(kRows, n - begin);
            std::vector<float> xn(static_cast<size_t>(count));
            for (int64_t i = 0; i < count; ++i) {
                float s = 0;
                for (int64_t t = 0; t < d; ++t) s += X.row(begin + i)[t] * X.row(begin + i)[t];
                xn[static_cast<size_t>(i)] = s;
            }
            kkm::linalg::sgemm(kkm::linalg::Trans::no, kkm::linalg::Trans::yes, count, m, d, 1.0f, X.row(begin), d,
                               L.data(), d, 0.0f, out.row(begin), m, 1);
            kkm::elementwise::rbf(out.row(begin), count, m, m, xn.data(), ln.data(), static_cast<float>(gamma));
        });
    });
    std::printf("%-22s %7.3f s  %7.1f GFLOP/s\n", "blis sgemm + exp pass", blis, flops / blis / 1e9);
    for (kkm::engine::Isa isa : {kkm::engine::Isa::avx512, kkm::engine::Isa::avx2, kkm::engine::Isa::portable}) {
        if (!kkm::engine::isa_supported(isa)) continue;
        const kkm::Kernel kernel(kkm::KernelType::rbf, gamma, 3, 1.0, isa);
        const kkm::engine::PackedRows packed = kernel.pack(L.view());
        const double s = best_seconds(3, [&] {
            kkm::parallel_blocks(threads, kkm::block_count(n, kRows), [&](int64_t b) {
                const int64_t begin = b * kRows, count = std::min(kRows, n - begin);
                kernel.block(X.view().slice(begin, count), packed, out.row(begin), m);
            });
        });
        std::printf("engine %-15s %7.3f s  %7.1f GFLOP/s  (%.2fx blis)\n", kkm::engine::isa_name(isa), s,
                    flops / s / 1e9, blis / s);
    }
    return 0;
}
