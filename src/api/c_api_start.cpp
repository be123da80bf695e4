// The C API's starting partitions (kkm_set_init_labels, kkm_set_init_centres: where the next
// fits start) and the fitted model's feature-space centres (kkm_get_centres).
#include <algorithm>
#include <cstdint>
#include <string>

#include "api/api_guard.h"
#include "api/model_handle.h"
#include "core/enum_text.h"
#include "core/error.h"
#include "core/validate.h"
#include "kkmeans.h"
#include "model/model.h"

kkm_status kkm_set_init_labels(kkm_model* model, const int32_t* labels, int64_t n) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    if (labels == nullptr) {
        model->start = kkm::Start{};
        return KKM_OK;
    }
    if (n < 1)
        kkm::invalid_argument("n=" + std::to_string(n) + " starting labels; give at least one (or NULL to clear)");
    if (static_cast<uint64_t>(n) > static_cast<uint64_t>(INT64_MAX) / sizeof(int32_t)) {
        kkm::invalid_argument("n=" + std::to_string(n) +
                              " starting labels overflow 64-bit sizes (n x 4 bytes); check n");
    }
    for (int64_t i = 0; i < n; ++i) {
        if (labels[i] < 0) {
            kkm::invalid_argument("starting label labels[" + std::to_string(i) + "]=" + std::to_string(labels[i]) +
                                  " is negative; labels are clusters in [0, k)");
        }
    }
    kkm::Start start;
    start.labels.assign(labels, labels + n);
    model->start = std::move(start);
    KKM_API_END
}

kkm_status kkm_set_init_centres(kkm_model* model, const float* centres, int64_t k, int64_t d) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    if (centres == nullptr) {
        model->start = kkm::Start{};
        return KKM_OK;
    }
    if (k < 1 || d < 1) {
        kkm::invalid_argument("starting centres of k=" + std::to_string(k) + " rows and d=" + std::to_string(d) +
                              " columns; both must be >= 1 (or centres NULL to clear)");
    }
    kkm::require_product(k, "k", d, "d", sizeof(float), "the starting centres");
    kkm::require_finite(kkm::ConstMatrix{centres, k, d}, "centres", 0, 1);
    kkm::Start start;
    start.centres.assign(centres, centres + k * d);
    start.centre_rows = k;
    model->start = std::move(start);
    KKM_API_END
}

kkm_status kkm_get_centres(const kkm_model* model, float* centres, int64_t len) {
    KKM_API_BEGIN
    const auto held = kkm::fitted_of(model);
    const kkm::FittedModel& f = *held;
    kkm::require_pointer(centres, "centres");
    const kkm::Matrix c = f.feature_centres();
    if (c.rows == 0) {
        kkm::invalid_argument(std::string("a model of method=") + kkm::to_text(f.params().method) +
                              " kernel=" + kkm::to_text(f.params().kernel) +
                              (f.feature_dim() > 0
                                   ? " loaded from a file keeps no explicit centres (kernel=precomputed)"
                                   : " has no explicit centres (they are weighted sums of training points)") +
                              "; use kkm_distances");
    }
    const int64_t need = c.rows * c.cols;
    if (len < need) {
        kkm::invalid_argument("len=" + std::to_string(len) +
                              " is too small for centres: k x feature_dim = " + std::to_string(c.rows) + " x " +
                              std::to_string(c.cols) + " = " + std::to_string(need) + " floats");
    }
    for (int64_t i = 0; i < c.rows; ++i) std::copy(c.row(i), c.row(i) + c.cols, centres + i * c.cols);
    KKM_API_END
}
