// Generated data sets with known structure, shared by the internal unit tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace kkm::testdata {

struct Labeled {
    std::vector<float> X;  // row-major n×d
    std::vector<int32_t> y;
    int64_t n = 0;
    int64_t d = 0;
};

/// Two concentric rings in 2-D (radii 1 and 3, Gaussian noise), per_ring points each.
inline Labeled rings(int64_t per_ring, double noise, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> angle(0.0, 2.0 * M_PI);
    std::normal_distribution<double> jitter(0.0, noise);
    Labeled out;
    out.d = 2;
    for (int ring = 0; ring < 2; ++ring) {
        const double radius = ring == 0 ? 1.0 : 3.0;
        for (int64_t i = 0; i < per_ring; ++i) {
            const double a = angle(gen);
            out.X.push_back(static_cast<float>(radius * std::cos(a) + jitter(gen)));
            out.X.push_back(static_cast<float>(radius * std::sin(a) + jitter(gen)));
            out.y.push_back(ring);
        }
    }
    out.n = 2 * per_ring;
    return out;
}

/// k isotropic Gaussian blobs in d dimensions, centres spread by `spread`.
inline Labeled blobs(int64_t per_blob, int64_t k, int64_t d, double spread, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> centre(-spread, spread);
    std::normal_distribution<double> noise(0.0, 1.0);
    Labeled out;
    out.d = d;
    for (int64_t c = 0; c < k; ++c) {
        std::vector<double> mu(static_cast<size_t>(d));
        for (double& v : mu) v = centre(gen);
        for (int64_t i = 0; i < per_blob; ++i) {
            for (int64_t j = 0; j < d; ++j)
                out.X.push_back(static_cast<float>(mu[static_cast<size_t>(j)] + noise(gen)));
            out.y.push_back(static_cast<int32_t>(c));
        }
    }
    out.n = per_blob * k;
    return out;
}

}  // namespace kkm::testdata
