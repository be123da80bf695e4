// Buffer bounds through the public C API: every buffer the caller passes (inputs and
// outputs) is placed against an inaccessible guard page, exactly sized, so that a read or
// write of even one element past its end (or before its start) crashes. The header says the
// caller owns these buffers and gives their sizes; the library must stay inside them.
//
// Each case runs in a child process (a GoogleTest death test expecting a clean exit), so a
// crash is reported as a failure naming the case instead of killing the whole suite.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

namespace {

// n elements of T with PROT_NONE pages on both sides. at_end: the buffer ends exactly at the
// following guard page (catches over-reads/writes); otherwise it starts exactly after the
// preceding guard page (catches under-reads/writes).
template <class T>
class Guarded {
public:
    Guarded(size_t n, bool at_end) : n_(n) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t bytes = n * sizeof(T);
        const size_t body = (bytes + page - 1) / page * page;
        total_ = body + 2 * page;
        void* p = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            std::perror("mmap");
            std::abort();
        }
        base_ = static_cast<char*>(p);
        mprotect(base_, page, PROT_NONE);
        mprotect(base_ + page + body, page, PROT_NONE);
        data_ = reinterpret_cast<T*>(at_end ? base_ + page + body - bytes : base_ + page);
    }
    Guarded(const std::vector<T>& v, bool at_end) : Guarded(v.size(), at_end) {
        std::memcpy(data_, v.data(), v.size() * sizeof(T));
    }
    ~Guarded() { munmap(base_, total_); }
    Guarded(const Guarded&) = delete;
    Guarded& operator=(const Guarded&) = delete;
    T* data() { return data_; }
    size_t size() const { return n_; }
    std::vector<T> copy() const { return std::vector<T>(data_, data_ + n_); }

private:
    char* base_ = nullptr;
    size_t total_ = 0;
    size_t n_ = 0;
    T* data_ = nullptr;
};

// In the child: print what is about to run (shown by the parent if the child dies).
void step(const std::string& what) {
    std::fprintf(stderr, "%s\n", what.c_str());
    std::fflush(stderr);
}

// In the child: any failure ends the child with code 1 and a message.
void require(bool ok, const std::string& what) {
    if (ok) return;
    std::fprintf(stderr, "check failed: %s (last error: %s)\n", what.c_str(), kkm_last_error());
    std::fflush(stderr);
    std::_Exit(1);
}

class Bounds : public ::testing::Test {
protected:
    void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

const char* kSide[2] = {"start", "end"};

// Runs a case in the death-test child and exits 0 if it returns.
void in_child(void (*body)()) {
    body();
    std::fflush(stderr);
    std::_Exit(0);
}

// Fit + assign + distances + getters with every buffer guarded, for several d and both methods.
void fit_and_assign_guarded(const char* method) {
    for (int64_t d : {1, 2, 3, 5}) {
        for (int side = 0; side < 2; ++side) {
            const bool at_end = side == 1;
            const Dataset ds = blobs(13, d, 3, static_cast<uint32_t>(d));  // n = 39
            const std::string params = std::string("k=3 kernel=rbf gamma=0.05 m=11 seed=1 method=") + method;
            const std::string tag = std::string(method) + " d=" + std::to_string(d) + " guard at " + kSide[side];
            kkm_model* m = nullptr;
            require(kkm_create(&m) == KKM_OK, "create");
            require(kkm_set_params(m, params.c_str()) == KKM_OK, "set_params");

            Guarded<float> X(ds.X, at_end);
            std::vector<float> w(static_cast<size_t>(ds.n));
            for (size_t i = 0; i < w.size(); ++i) w[i] = 1.0f + static_cast<float>(i % 3);
            Guarded<float> W(w, at_end);
            step("kkm_fit " + tag);
            require(kkm_fit(m, X.data(), ds.n, ds.d, W.data()) == KKM_OK, "fit " + tag);

            Guarded<double> X64(ds.X64, at_end);
            std::vector<double> w64(w.begin(), w.end());
            Guarded<double> W64(w64, at_end);
            step("kkm_fit_f64 " + tag);
            require(kkm_fit_f64(m, X64.data(), ds.n, ds.d, W64.data()) == KKM_OK, "fit_f64 " + tag);

            Guarded<int32_t> labels(static_cast<size_t>(ds.n), at_end);
            step("kkm_get_labels " + tag);
            require(kkm_get_labels(m, labels.data(), ds.n) == KKM_OK, "get_labels " + tag);
            Guarded<double> sizes(3, at_end);
            step("kkm_get_cluster_sizes " + tag);
            require(kkm_get_cluster_sizes(m, sizes.data(), 3) == KKM_OK, "get_cluster_sizes " + tag);

            for (int64_t rows : {int64_t{1}, int64_t{2}, int64_t{7}, ds.n}) {
                const std::string t2 = tag + " rows=" + std::to_string(rows);
                std::vector<float> part(ds.X.begin(), ds.X.begin() + rows * ds.d);
                Guarded<float> Y(part, at_end);
                Guarded<int32_t> out(static_cast<size_t>(rows), at_end);
                Guarded<float> dist(static_cast<size_t>(rows), at_end);
                step("kkm_assign " + t2);
                require(kkm_assign(m, Y.data(), rows, ds.d, out.data(), dist.data()) == KKM_OK, "assign " + t2);
                step("kkm_assign (no distances) " + t2);
                require(kkm_assign(m, Y.data(), rows, ds.d, out.data(), nullptr) == KKM_OK, "assign " + t2);
                std::vector<double> part64(part.begin(), part.end());
                Guarded<double> Y64(part64, at_end);
                Guarded<double> dist64(static_cast<size_t>(rows), at_end);
                step("kkm_assign_f64 " + t2);
                require(kkm_assign_f64(m, Y64.data(), rows, ds.d, out.data(), dist64.data()) == KKM_OK,
                        "assign_f64 " + t2);
                Guarded<float> all(static_cast<size_t>(rows * 3), at_end);  // n x k, k = 3
                step("kkm_distances " + t2);
                require(kkm_distances(m, Y.data(), rows, ds.d, all.data(), rows * 3) == KKM_OK, "distances " + t2);
                Guarded<double> all64(static_cast<size_t>(rows * 3), at_end);
                step("kkm_distances_f64 " + t2);
                require(kkm_distances_f64(m, Y64.data(), rows, ds.d, all64.data(), rows * 3) == KKM_OK,
                        "distances_f64 " + t2);
            }
            kkm_destroy(m);
        }
    }
}

}  // namespace

static void case_ExactFitAndAssign() {
    fit_and_assign_guarded("exact");
}
TEST_F(Bounds, ExactFitAndAssign) {
    EXPECT_EXIT(in_child(case_ExactFitAndAssign), ::testing::ExitedWithCode(0), "");
}

static void case_NystromFitAndAssign() {
    fit_and_assign_guarded("nystrom");
}
TEST_F(Bounds, NystromFitAndAssign) {
    EXPECT_EXIT(in_child(case_NystromFitAndAssign), ::testing::ExitedWithCode(0), "");
}

// kkm_transform writes exactly n × feature_dim floats into the caller's `out`. Feature
// dimensions 1..12 cover every remainder modulo the SIMD widths.
static void case_TransformOutput() {
    const Dataset ds = blobs(20, 2, 3, 5, 3.0);  // n = 60, spread out: K_LL well conditioned
    for (int landmarks = 1; landmarks <= 12; ++landmarks) {
        kkm_model* m = nullptr;
        require(kkm_create(&m) == KKM_OK, "create");
        const std::string params = "k=1 method=nystrom kernel=rbf gamma=0.05 seed=2 m=" + std::to_string(landmarks);
        require(kkm_set_params(m, params.c_str()) == KKM_OK, "set_params");
        require(kkm_fit(m, ds.X.data(), ds.n, ds.d, nullptr) == KKM_OK, "fit " + params);
        int64_t dim = 0;
        require(kkm_get_feature_dim(m, &dim) == KKM_OK && dim >= 1, "feature_dim");
        for (int side = 0; side < 2; ++side) {
            for (int64_t rows : {int64_t{1}, int64_t{3}, ds.n}) {
                Guarded<float> X(std::vector<float>(ds.X.begin(), ds.X.begin() + rows * ds.d), side == 1);
                Guarded<float> out(static_cast<size_t>(rows * dim), side == 1);
                step("kkm_transform m=" + std::to_string(landmarks) + " feature_dim=" + std::to_string(dim) +
                     " rows=" + std::to_string(rows) + " guard at " + kSide[side]);
                require(kkm_transform(m, X.data(), rows, ds.d, out.data(), rows * dim) == KKM_OK, "transform");
            }
        }
        kkm_destroy(m);
    }
}
TEST_F(Bounds, TransformOutput) {
    EXPECT_EXIT(in_child(case_TransformOutput), ::testing::ExitedWithCode(0), "");
}

// Larger Nyström maps (m = 30, 66, 202 landmarks on 600 points in 5-D): transform and assign
// with the caller's X, out, labels and distances each against a guard page.
static void case_NystromLargerMaps() {
    const Dataset ds = uniform(600, 5, 12);
    std::vector<float> X = ds.X;
    for (auto& x : X) x *= 10.0f;
    for (int landmarks : {30, 66, 202}) {
        kkm_model* m = nullptr;
        require(kkm_create(&m) == KKM_OK, "create");
        const std::string params = "k=3 method=nystrom kernel=rbf gamma=0.02 seed=1 m=" + std::to_string(landmarks);
        require(kkm_set_params(m, params.c_str()) == KKM_OK, "set_params");
        {
            Guarded<float> GX(X, true);
            step("kkm_fit " + params + " (X guarded)");
            require(kkm_fit(m, GX.data(), ds.n, ds.d, nullptr) == KKM_OK, "fit " + params);
        }
        int64_t dim = 0;
        require(kkm_get_feature_dim(m, &dim) == KKM_OK && dim >= 1, "feature_dim");
        for (int64_t rows : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{256}, ds.n}) {
            const std::string tag = params + " feature_dim=" + std::to_string(dim) + " rows=" + std::to_string(rows);
            const std::vector<float> part(X.begin(), X.begin() + rows * ds.d);
            std::vector<float> out_plain(static_cast<size_t>(rows * dim));
            std::vector<int32_t> labels_plain(static_cast<size_t>(rows));
            std::vector<float> dist_plain(static_cast<size_t>(rows));
            {
                Guarded<float> Y(part, true);
                step("kkm_transform " + tag + ": X guarded");
                require(kkm_transform(m, Y.data(), rows, ds.d, out_plain.data(), rows * dim) == KKM_OK, "transform");
                step("kkm_assign " + tag + ": X guarded");
                require(kkm_assign(m, Y.data(), rows, ds.d, labels_plain.data(), dist_plain.data()) == KKM_OK,
                        "assign");
            }
            {
                Guarded<float> out(static_cast<size_t>(rows * dim), true);
                step("kkm_transform " + tag + ": out guarded");
                require(kkm_transform(m, part.data(), rows, ds.d, out.data(), rows * dim) == KKM_OK, "transform");
            }
            {
                Guarded<int32_t> labels(static_cast<size_t>(rows), true);
                Guarded<float> dist(static_cast<size_t>(rows), true);
                step("kkm_assign " + tag + ": labels and distances guarded");
                require(kkm_assign(m, part.data(), rows, ds.d, labels.data(), dist.data()) == KKM_OK, "assign");
            }
        }
        kkm_destroy(m);
    }
}
TEST_F(Bounds, NystromLargerMaps) {
    EXPECT_EXIT(in_child(case_NystromLargerMaps), ::testing::ExitedWithCode(0), "");
}

// k from 1 to 9 for both methods: internal n × k products with every remainder.
static void case_AssignForEveryK() {
    const Dataset ds = blobs(10, 3, 9, 6);  // n = 90
    for (const char* method : {"exact", "nystrom"}) {
        for (int k = 1; k <= 9; ++k) {
            kkm_model* m = nullptr;
            require(kkm_create(&m) == KKM_OK, "create");
            const std::string params =
                std::string("kernel=rbf gamma=0.01 m=20 seed=3 method=") + method + " k=" + std::to_string(k);
            require(kkm_set_params(m, params.c_str()) == KKM_OK, "set_params");
            Guarded<float> X(ds.X, true);
            step("kkm_fit " + params);
            require(kkm_fit(m, X.data(), ds.n, ds.d, nullptr) == KKM_OK, "fit " + params);
            for (int64_t rows : {int64_t{1}, int64_t{5}, ds.n}) {
                Guarded<float> Y(std::vector<float>(ds.X.begin(), ds.X.begin() + rows * ds.d), true);
                Guarded<int32_t> labels(static_cast<size_t>(rows), true);
                Guarded<float> dist(static_cast<size_t>(rows), true);
                step("kkm_assign " + params + " rows=" + std::to_string(rows));
                require(kkm_assign(m, Y.data(), rows, ds.d, labels.data(), dist.data()) == KKM_OK, "assign " + params);
            }
            Guarded<double> sizes(static_cast<size_t>(k), true);
            require(kkm_get_cluster_sizes(m, sizes.data(), k) == KKM_OK, "get_cluster_sizes");
            kkm_destroy(m);
        }
    }
}
TEST_F(Bounds, AssignForEveryK) {
    EXPECT_EXIT(in_child(case_AssignForEveryK), ::testing::ExitedWithCode(0), "");
}

static void case_PrecomputedKernel() {
    const Dataset ds = blobs(9, 2, 2, 8);  // n = 18
    std::vector<float> K(static_cast<size_t>(ds.n * ds.n));
    for (int64_t a = 0; a < ds.n; ++a) {
        for (int64_t b = 0; b < ds.n; ++b) {
            double s = 0;
            for (int64_t j = 0; j < ds.d; ++j) {
                const double t = static_cast<double>(ds.X[a * ds.d + j]) - ds.X[b * ds.d + j];
                s += t * t;
            }
            K[static_cast<size_t>(a * ds.n + b)] = static_cast<float>(std::exp(-0.05 * s));
        }
    }
    for (int side = 0; side < 2; ++side) {
        kkm_model* m = nullptr;
        require(kkm_create(&m) == KKM_OK, "create");
        require(kkm_set_params(m, "k=2 method=exact kernel=precomputed seed=1") == KKM_OK, "set_params");
        Guarded<float> GK(K, side == 1);
        step(std::string("kkm_fit precomputed, guard at ") + kSide[side]);
        require(kkm_fit(m, GK.data(), ds.n, ds.n, nullptr) == KKM_OK, "fit precomputed");
        for (int64_t rows : {int64_t{1}, int64_t{3}, ds.n}) {
            Guarded<float> rowsK(std::vector<float>(K.begin(), K.begin() + rows * ds.n), side == 1);
            Guarded<int32_t> labels(static_cast<size_t>(rows), side == 1);
            step("kkm_assign precomputed rows=" + std::to_string(rows) + " guard at " + kSide[side]);
            require(kkm_assign(m, rowsK.data(), rows, ds.n, labels.data(), nullptr) == KKM_OK, "assign precomputed");
        }
        kkm_destroy(m);
    }
}
TEST_F(Bounds, PrecomputedKernel) {
    EXPECT_EXIT(in_child(case_PrecomputedKernel), ::testing::ExitedWithCode(0), "");
}

static void case_TextOutputsAndMetrics() {
    const Dataset ds = blobs(10, 2, 2, 9);
    kkm_model* m = nullptr;
    require(kkm_create(&m) == KKM_OK, "create");
    require(kkm_set_params(m, "k=2 method=exact gamma=auto seed=1") == KKM_OK, "set_params");
    require(kkm_fit(m, ds.X.data(), ds.n, ds.d, nullptr) == KKM_OK, "fit");
    for (int side = 0; side < 2; ++side) {
        for (const char* key : {"k", "method", "gamma", "tol", "kernel"}) {
            size_t need = 0;
            char probe[1];
            kkm_get_param(m, key, probe, sizeof probe, &need);
            Guarded<char> buf(need + 1, side == 1);
            step(std::string("kkm_get_param ") + key + " exact-size buffer");
            require(kkm_get_param(m, key, buf.data(), need + 1, nullptr) == KKM_OK, "get_param");
            Guarded<char> small(need, side == 1);  // one byte short: truncated, still inside
            step(std::string("kkm_get_param ") + key + " one byte short");
            require(kkm_get_param(m, key, small.data(), need, nullptr) == KKM_ERR_INVALID_ARGUMENT, "get_param short");
        }
        size_t need = 0;
        char probe[1];
        kkm_get_timings(m, probe, sizeof probe, &need);
        Guarded<char> buf(need + 1, side == 1);
        step("kkm_get_timings exact-size buffer");
        require(kkm_get_timings(m, buf.data(), need + 1, nullptr) == KKM_OK, "get_timings");

        for (int64_t n : {5, 33}) {
            std::vector<int32_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) {
                a[static_cast<size_t>(i)] = static_cast<int32_t>(i % 3);
                b[static_cast<size_t>(i)] = static_cast<int32_t>((i * 7) % 4);
            }
            Guarded<int32_t> A(a, side == 1), B(b, side == 1);
            Guarded<double> out(1, side == 1);
            step("kkm_adjusted_rand_index / kkm_normalized_mutual_info n=" + std::to_string(n));
            require(kkm_adjusted_rand_index(A.data(), B.data(), n, out.data()) == KKM_OK, "ari");
            require(kkm_normalized_mutual_info(A.data(), B.data(), n, out.data()) == KKM_OK, "nmi");
        }
    }
    kkm_destroy(m);
}
TEST_F(Bounds, TextOutputsAndMetrics) {
    EXPECT_EXIT(in_child(case_TextOutputsAndMetrics), ::testing::ExitedWithCode(0), "");
}
