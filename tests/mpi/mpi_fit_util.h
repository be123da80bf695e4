// Data, splits and fits shared by the MPI test programs: each rank generates the whole data
// set deterministically, fits it in one process (kkm_fit) for the reference, and fits its own
// share of the rows with kkm_fit_mpi.
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "kkmeans.h"
#include "kkmeans_mpi.h"
#include "mpi_test.h"

namespace mpi_test {

struct ModelDeleter {
    void operator()(kkm_model* m) const noexcept { kkm_destroy(m); }
};
using Model = std::unique_ptr<kkm_model, ModelDeleter>;

/// A model with these parameters (NULL if they are refused: the caller's checks then fail).
inline Model make_model(const std::string& params) {
    kkm_model* raw = nullptr;
    if (kkm_create(&raw) != KKM_OK) return nullptr;
    Model m(raw);
    if (kkm_set_params(m.get(), params.c_str()) != KKM_OK) {
        std::fprintf(stderr, "kkm_set_params(\"%s\"): %s\n", params.c_str(), kkm_last_error());
        return nullptr;
    }
    return m;
}

struct Data {
    int64_t n = 0;
    int64_t d = 0;
    std::vector<float> X;  ///< n × d, row-major
    std::vector<int32_t> truth;
};

/// Two concentric rings in 2-D, radii 1 and 3, Gaussian noise 0.1 per coordinate.
inline Data rings(int64_t per_ring, uint32_t seed) {
    Data ds;
    ds.n = 2 * per_ring;
    ds.d = 2;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> angle(0.0, 2.0 * std::numbers::pi);
    std::normal_distribution<double> noise(0.0, 0.1);
    for (int ring = 0; ring < 2; ++ring) {
        for (int64_t i = 0; i < per_ring; ++i) {
            const double a = angle(gen), r = ring == 0 ? 1.0 : 3.0;
            ds.X.push_back(static_cast<float>(r * std::cos(a) + noise(gen)));
            ds.X.push_back(static_cast<float>(r * std::sin(a) + noise(gen)));
            ds.truth.push_back(ring);
        }
    }
    return ds;
}

/// k Gaussian blobs in d dimensions (sd 1), centres drawn in [-6, 6]^d.
inline Data blobs(int64_t per_blob, int32_t k, int64_t d, uint32_t seed) {
    Data ds;
    ds.n = per_blob * k;
    ds.d = d;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> centre(-6.0, 6.0);
    std::normal_distribution<double> noise(0.0, 1.0);
    for (int32_t c = 0; c < k; ++c) {
        std::vector<double> mu(static_cast<size_t>(d));
        for (double& v : mu) v = centre(gen);
        for (int64_t i = 0; i < per_blob; ++i) {
            for (const double m : mu) ds.X.push_back(static_cast<float>(m + noise(gen)));
            ds.truth.push_back(c);
        }
    }
    return ds;
}

/// Rows per rank.
using Split = std::vector<int64_t>;

/// As even as possible: the first n % P ranks hold one row more.
inline Split even_split(int64_t n, int ranks) {
    Split s;
    for (int r = 0; r < ranks; ++r) s.push_back(n / ranks + (r < n % ranks ? 1 : 0));
    return s;
}

/// Rank r holds r + 1 parts of n / (1 + 2 + ... + P).
inline Split uneven_split(int64_t n, int ranks) {
    const int64_t parts = static_cast<int64_t>(ranks) * (ranks + 1) / 2;
    Split s;
    int64_t done = 0, cumulative = 0;
    for (int r = 0; r < ranks; ++r) {
        cumulative += r + 1;
        const int64_t end = n * cumulative / parts;
        s.push_back(end - done);
        done = end;
    }
    return s;
}

/// Rank `empty` holds no rows; the others split n evenly. Needs P ≥ 2.
inline Split split_with_empty_rank(int64_t n, int ranks, int empty) {
    const Split rest = even_split(n, ranks - 1);
    Split s;
    for (int r = 0, i = 0; r < ranks; ++r) s.push_back(r == empty ? 0 : rest[static_cast<size_t>(i++)]);
    return s;
}

/// Where a rank's rows start among all rows.
inline int64_t offset_of(const Split& s, int rank) {
    int64_t offset = 0;
    for (int r = 0; r < rank; ++r) offset += s[static_cast<size_t>(r)];
    return offset;
}

/// What a fit left: its status and message, and what the getters report.
struct Fit {
    kkm_status status = KKM_ERR_INTERNAL;
    std::string message;
    Model model;
    std::vector<int32_t> labels;  ///< training labels (this rank's rows)
    double objective = 0;
    int32_t iterations = 0;
    int64_t n_train = 0;
    std::vector<double> sizes;
};

/// Status and message of a call just made.
inline void record(Fit& f, kkm_status status) {
    f.status = status;
    f.message = status == KKM_OK ? "" : kkm_last_error();
}

/// Reads the getters of a fitted model into f.
inline void read_results(Fit& f) {
    kkm_model* m = f.model.get();
    if (f.status != KKM_OK || kkm_get_n_train(m, &f.n_train) != KKM_OK) return;
    f.labels.assign(static_cast<size_t>(f.n_train), -1);
    int32_t k = 0;
    kkm_get_k(m, &k);
    f.sizes.assign(static_cast<size_t>(k), -1.0);
    if (f.n_train > 0) kkm_get_labels(m, f.labels.data(), f.n_train);
    kkm_get_objective(m, &f.objective);
    kkm_get_iterations(m, &f.iterations);
    kkm_get_cluster_sizes(m, f.sizes.data(), k);
}

/// kkm_fit of the whole data set in this process.
inline Fit fit_one_process(const Data& ds, const std::string& params, const float* weights = nullptr) {
    Fit f;
    f.model = make_model(params);
    if (!f.model) return f;
    record(f, kkm_fit(f.model.get(), ds.X.data(), ds.n, ds.d, weights));
    read_results(f);
    return f;
}

/// kkm_fit_mpi of this rank's share of the data set (collective).
inline Fit fit_share(MPI_Comm comm, const Data& ds, const Split& split, const std::string& params,
                     const float* weights = nullptr) {
    const int rank = rank_of(comm);
    const int64_t offset = offset_of(split, rank), rows = split[static_cast<size_t>(rank)];
    Fit f;
    f.model = make_model(params);
    const float* X = rows > 0 ? ds.X.data() + offset * ds.d : nullptr;
    const float* w = weights != nullptr && rows > 0 ? weights + offset : nullptr;
    record(f, kkm_fit_mpi(f.model.get(), comm, X, rows, ds.d, w));
    read_results(f);
    return f;
}

/// FNV-1a of some bytes, as hex (to compare models across ranks through a gather).
inline std::string digest(const void* data, size_t bytes) {
    uint64_t h = 1469598103934665603ULL;
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

/// Digest of what a model assigns to all rows: labels and distances, bit for bit.
inline std::string assign_digest(const kkm_model* m, const Data& ds) {
    std::vector<int32_t> labels(static_cast<size_t>(ds.n));
    std::vector<float> dist(static_cast<size_t>(ds.n));
    if (kkm_assign(m, ds.X.data(), ds.n, ds.d, labels.data(), dist.data()) != KKM_OK) return "assign failed";
    return digest(labels.data(), labels.size() * 4) + digest(dist.data(), dist.size() * 4);
}

/// True when every rank passed the same string.
inline bool same_on_every_rank(MPI_Comm comm, const std::string& mine) {
    const std::vector<std::string> all = gather_strings(comm, mine);
    for (const std::string& s : all) {
        if (s != all[0]) return false;
    }
    return true;
}

inline bool contains(const std::string& text, const std::string& word) {
    return text.find(word) != std::string::npos;
}

}  // namespace mpi_test
