// The ABI boundary: every entry point checks its pointers, then runs inside
// KKM_API_BEGIN/KKM_API_END, which turn any exception into a status plus a thread-local
// message. No exception crosses this file.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <locale>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "api/api_guard.h"
#include "api/model_handle.h"
#include "core/enum_text.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/params.h"
#include "core/validate.h"
#include "eval/metrics.h"
#include "graph/sparse_graph.h"
#include "io/mapped_file.h"
#include "kernels/kernel_traits.h"
#include "kkmeans.h"
#include "model/methods.h"
#include "model/model.h"
#include "model/partial_fit.h"
#include "model/serialize.h"

namespace {

std::shared_ptr<const kkm::FittedModel> fitted(const kkm_model* model) {
    return kkm::fitted_of(model);
}

void copy_string(const std::string& value, char* buf, size_t len, size_t* out_len) {
    if (out_len != nullptr) *out_len = value.size();
    if (buf == nullptr && len == 0) return;  // size query
    kkm::require_pointer(buf, "buf");
    if (len > 0) {
        const size_t n = std::min(len - 1, value.size());
        std::memcpy(buf, value.data(), n);
        buf[n] = '\0';
    }
    if (len <= value.size()) {
        kkm::invalid_argument("len=" + std::to_string(len) +
                              " bytes is too small for buf: " + std::to_string(value.size() + 1) + " bytes are needed");
    }
}

std::string format_double(double v) {
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os.precision(17);  // round-trips a double
    os << v;
    return os.str();
}

/// Value of a parameter, with "auto" replaced by what the last fit resolved it to — only while
/// the parameters are still those of that fit: after kkm_set_param(s) changed any of them, the
/// fit's resolved gamma or m would describe another configuration (a new k with the old fit's
/// gamma), so "auto" is reported as set.
std::string displayed_param(const kkm_model* model, const char* key) {
    const std::string& value = model->params.get(key);
    const bool resolved_at_fit = value == "auto" || value == "search";
    const std::shared_ptr<const kkm::FittedState> state = kkm::fitted_state(model);
    if (!resolved_at_fit || !state || !(model->params == state->params)) return value;
    const kkm::FittedModel& f = *state->model;
    const int index = kkm::find_param(key);
    const std::string name = kkm::param_table()[static_cast<size_t>(index)].name;
    const kkm::FitReport& r = f.report();
    if (name == "gamma" && r.gamma > 0) return format_double(r.gamma);
    if (name == "k") return std::to_string(f.params().k);
    if (name == "isa") return kkm::engine::isa_name(r.isa);
    if (name == "kernel_rows" && r.kernel_rows) return *r.kernel_rows == kkm::RowPrecision::f16 ? "f16" : "f32";
    if (name == "m" && r.m > 0) return std::to_string(r.m);
    if (name == "reg_rank" && r.reg_rank > 0) return std::to_string(r.reg_rank);
    if (name == "rls_lambda" && r.rls_lambda > 0) return format_double(r.rls_lambda);
    if (name == "method") return kkm::to_text(f.params().method);
    if (name == "n_init") return std::to_string(f.params().n_init);
    if (name == "max_memory_mb") return std::to_string(f.params().max_memory_mb);
    if (name == "neighbors" && r.neighbors > 0) return std::to_string(r.neighbors);
    if (name == "heat_rank" && r.heat_rank > 0) return std::to_string(r.heat_rank);
    if (name == "graph" && r.graph != kkm::GraphChoice::automatic) return kkm::to_text(r.graph);
    return value;
}

/// The sizes of a fit, checked before anything reads X or the weights: (n, d) for elements of
/// element_bytes bytes, and the products the fit will form (n x k, n x m).
void check_fit_shape(const kkm_model* model, int64_t n, int64_t d, size_t element_bytes) {
    kkm::require_shape(n, d, element_bytes);
    kkm::require_fit_sizes(model->params.typed(), n, d);
}

/// The model, the caller's X and its sizes, for the fits that read X from memory.
void check_fit_input(const kkm_model* model, const void* X, int64_t n, int64_t d, size_t element_bytes) {
    kkm::require_pointer(model, "model");
    kkm::require_pointer(X, "X");
    check_fit_shape(model, n, d, element_bytes);
}

/// A raw input file mapped read-only (kkm_fit_file); IO naming the path when it cannot be.
kkm::io::MappedFile map_input(const char* path) {
    try {
        return kkm::io::MappedFile(path);
    } catch (const kkm::io::FileError& e) {
        kkm::fail(KKM_ERR_IO, e.what());
    }
}

kkm_status fit_checked(kkm_model* model, kkm::ConstMatrix X, std::vector<float> weights,
                       kkm::MemoryLedger* ledger = nullptr) {
    KKM_API_BEGIN
    // X's finiteness is checked in the fit's one pass over it (scan_rows), after the budget.
    kkm::fit_into(*model, model->progress, model->progress_user,
                  [&](const kkm::Params& params) { return kkm::fit_model(params, X, weights, ledger, &model->start); });
    KKM_API_END
}

/// Replaces the model's parameters and fitted state by a loaded model's (cannot fail).
void install(kkm_model* model, kkm::LoadedModel&& loaded) noexcept {
    const kkm::WriterTurns::Turn turn(model->writers);
    model->start = kkm::Start{};
    model->params = loaded.params;
    kkm::replace_state(*model, std::make_shared<const kkm::FittedState>(
                                   kkm::FittedState{std::move(loaded.params), std::move(loaded.fitted)}));
}

void check_assign_input(const kkm::FittedModel& f, const void* X, int64_t n, int64_t d, const void* out,
                        const char* out_name, size_t element_bytes) {
    kkm::require_pointer(X, "X");
    kkm::require_pointer(out, out_name);
    kkm::require_shape(n, d, element_bytes);
    if (d != f.input_dim()) {
        kkm::invalid_argument(
            "X has d=" + std::to_string(d) + " columns but the model was fitted on d=" + std::to_string(f.input_dim()) +
            (kkm::kernel_traits(f.params().kernel).precomputed ? " (kernel=precomputed: one column per training point)"
                                                               : ""));
    }
}

int assign_threads(const kkm::FittedModel& f) {
    const int threads = kkm::resolve_threads(f.params().threads);
    kkm::require_startable_threads(threads);
    return threads;
}

/// kkm_distances' output, checked before anything reads X: n x k values of element_bytes
/// bytes must be addressable and fit in out_len.
void check_distances_output(const kkm::FittedModel& f, int64_t n, int64_t out_len, size_t element_bytes) {
    const int64_t k = f.params().k;
    kkm::require_product(n, "n", k, "k", element_bytes, "out");
    if (out_len < n * k) {
        kkm::invalid_argument("out_len=" + std::to_string(out_len) +
                              " is too small for out: n x k = " + std::to_string(n) + " x " + std::to_string(k) +
                              " = " + std::to_string(n * k) + " values are needed");
    }
}

/// Whether the model measures distances of new rows: not with kernel=precomputed for the
/// methods that need k(x, x) (exact, minibatch, nystrom), which give labels only.
bool measures(const kkm::FittedModel& f) {
    const kkm::Params& p = f.params();
    return !kkm::kernel_traits(p.kernel).precomputed || !kkm::method_traits(p.method).needs_diagonal;
}

/// What a model computed for the rows, checked before the caller sees it: a NaN (an overflow
/// of damaged model values, or of the rows' kernel values) is an error naming the row, never a
/// distance. `cols` values per row; `infinite_ok`: +inf marks a centre that lost every point.
[[noreturn]] void not_computed(int64_t row, const std::string& what) {
    kkm::invalid_data("row " + std::to_string(row) + ": the model gives a non-finite " + what +
                      ": its values overflow float32 against this row, or the model is damaged");
}

void require_computed(const float* values, int64_t rows, int64_t cols, bool infinite_ok, const char* what) {
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
            const float v = values[i * cols + j];
            if (std::isnan(v) || (!infinite_ok && std::isinf(v))) {
                not_computed(i, what + (cols > 1 ? " (column " + std::to_string(j) + ")" : std::string()));
            }
        }
    }
}

/// kkm_distances' rows: +inf stands for a centre without members, but a row whose nearest
/// centre is +inf is refused as kkm_assign refuses it (the same rows, the same message).
void require_distances(const float* values, int64_t rows, int64_t k) {
    require_computed(values, rows, k, true, "distance");
    for (int64_t i = 0; i < rows; ++i) {
        const float* row = values + i * k;
        if (std::isinf(*std::min_element(row, row + k))) not_computed(i, "distance to its nearest centre");
    }
}

/// Row `index` of the parameter table, or INVALID_ARGUMENT naming the valid range.
const kkm::ParamSpec& param_at(int32_t index) {
    const auto& table = kkm::param_table();
    if (index < 0 || index >= static_cast<int32_t>(table.size())) {
        kkm::invalid_argument("parameter index " + std::to_string(index) + " out of range [0, " +
                              std::to_string(table.size()) + ")");
    }
    return table[static_cast<size_t>(index)];
}

/// A getter of one value of a fitted model: NO_MODEL before a fit, INVALID_ARGUMENT for a
/// NULL `out` (named `name`), else *out = get(model).
template <class T, class Get>
kkm_status fitted_value(const kkm_model* model, T* out, const char* name, Get get) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    kkm::require_pointer(out, name);
    *out = get(f);
    KKM_API_END
}

/// A score of two labelings of n points (ARI, NMI): INVALID_ARGUMENT for a NULL pointer or n <= 0.
kkm_status partition_score(const int32_t* a, const int32_t* b, int64_t n, double* out,
                           double (*score)(const int32_t*, const int32_t*, int64_t)) {
    KKM_API_BEGIN
    kkm::require_pointer(a, "a");
    kkm::require_pointer(b, "b");
    kkm::require_pointer(out, "out");
    if (n <= 0) kkm::invalid_argument("n must be > 0, got " + std::to_string(n));
    *out = score(a, b, n);
    KKM_API_END
}

}  // namespace

extern "C" {

const char* kkm_version(void) {
    return KKM_VERSION_STRING;
}

const char* kkm_status_string(kkm_status status) {
    switch (status) {
        case KKM_OK: return "ok";
        case KKM_ERR_INVALID_ARGUMENT: return "invalid argument";
        case KKM_ERR_INVALID_DATA: return "invalid data";
        case KKM_ERR_NOT_FITTED: return "not fitted";
        case KKM_ERR_OUT_OF_MEMORY: return "out of memory";
        case KKM_ERR_IO: return "i/o error";
        case KKM_ERR_FORMAT: return "format error";
        case KKM_ERR_CANCELLED: return "cancelled";
        case KKM_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

kkm_status kkm_create(kkm_model** out) {
    KKM_API_BEGIN
    kkm::require_pointer(out, "out");
    *out = nullptr;
    auto model = std::make_unique<kkm_model>();
    *out = model.release();
    KKM_API_END
}

void kkm_destroy(kkm_model* model) {
    delete model;
}

kkm_status kkm_set_param(kkm_model* model, const char* key, const char* value) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    kkm::require_pointer(key, "key");
    kkm::require_pointer(value, "value");
    model->params.set(key, value);
    KKM_API_END
}

kkm_status kkm_set_params(kkm_model* model, const char* params) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    kkm::require_pointer(params, "params");
    model->params.set_many(params);
    KKM_API_END
}

kkm_status kkm_get_param(const kkm_model* model, const char* key, char* buf, size_t len, size_t* out_len) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    kkm::require_pointer(key, "key");
    copy_string(displayed_param(model, key), buf, len, out_len);
    KKM_API_END
}

int32_t kkm_param_count(void) {
    return static_cast<int32_t>(kkm::param_table().size());
}

kkm_status kkm_param_info(int32_t index, const char** name, const char** type, const char** default_value,
                          const char** range, const char** doc) {
    KKM_API_BEGIN
    const kkm::ParamSpec& s = param_at(index);
    if (name) *name = s.name;
    if (type) *type = s.type;
    if (default_value) *default_value = s.default_value;
    if (range) *range = s.range;
    if (doc) *doc = s.doc;
    KKM_API_END
}

kkm_status kkm_param_aliases(int32_t index, const char** aliases) {
    KKM_API_BEGIN
    kkm::require_pointer(aliases, "aliases");
    *aliases = param_at(index).aliases;
    KKM_API_END
}

kkm_status kkm_fit(kkm_model* model, const float* X, int64_t n, int64_t d, const float* weights) {
    KKM_API_BEGIN
    check_fit_input(model, X, n, d, sizeof(float));
    return fit_checked(model, kkm::ConstMatrix{X, n, d}, kkm::checked_weights(weights, n));
    KKM_API_END
}

kkm_status kkm_fit_f64(kkm_model* model, const double* X, int64_t n, int64_t d, const double* weights) {
    KKM_API_BEGIN
    check_fit_input(model, X, n, d, sizeof(double));
    // The float32 copy counts against max_memory_mb: charged to the fit's ledger (and the fit's
    // estimate checked on top) before it is made.
    const kkm::Params params = model->params.typed();
    kkm::MemoryLedger ledger(params.max_memory_mb);
    const kkm::MemoryLedger::Charge copy = kkm::charge_float32_copy(ledger, params, n, d, weights != nullptr);
    const kkm::Matrix converted = kkm::to_float32(X, n, d, "X");
    return fit_checked(model, converted.view(), kkm::checked_weights(weights, n), &ledger);
    KKM_API_END
}

kkm_status kkm_fit_file(kkm_model* model, const char* path, int64_t d, const float* weights, int64_t n_weights) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    kkm::require_pointer(path, "path");
    if (d <= 0) kkm::invalid_argument("d (number of columns) must be > 0, got " + std::to_string(d));
    kkm::require_product(1, "one row", d, "d", sizeof(float), "a row of X");
    if (std::endian::native != std::endian::little) {
        kkm::invalid_argument(
            "kkm_fit_file reads little-endian float32, and this machine is big-endian; read the "
            "file, convert it and call kkm_fit");
    }
    const kkm::io::MappedFile file = map_input(path);
    const uint64_t row_bytes = static_cast<uint64_t>(d) * sizeof(float);
    if (file.size() % row_bytes != 0) {
        kkm::invalid_argument(std::string("'") + path + "' holds " + std::to_string(file.size()) +
                              " bytes, not a multiple of 4*d = " + std::to_string(row_bytes) +
                              " (raw float32 rows of d values): check d");
    }
    const auto n = static_cast<int64_t>(file.size() / row_bytes);
    if (weights != nullptr && n_weights != n) {
        kkm::invalid_argument("n_weights=" + std::to_string(n_weights) + " but '" + path + "' holds n=" +
                              std::to_string(n) + " rows of d=" + std::to_string(d) + "; give one weight per row");
    }
    check_fit_shape(model, n, d, sizeof(float));
    // The mapping is 4-byte aligned (page-aligned): its floats are read in place, never copied.
    const kkm::ConstMatrix X{reinterpret_cast<const float*>(file.data()), n, d};
    return fit_checked(model, X, kkm::checked_weights(weights, n));
    KKM_API_END
}

kkm_status kkm_partial_fit(kkm_model* model, const float* X, int64_t n, int64_t d, const float* weights) {
    KKM_API_BEGIN
    check_fit_input(model, X, n, d, sizeof(float));
    if (model->start.given()) {
        kkm::invalid_argument(
            "kkm_partial_fit does not start from a given partition (kkm_set_init_labels / kkm_set_init_centres); "
            "clear it (NULL) first");
    }
    const std::vector<float> w = kkm::checked_weights(weights, n);
    // Same parameters as the fitted model: go on from it; else this batch starts a new stream.
    // Read under the writer lock fit_into holds: a partial_fit beside this one has finished.
    kkm::fit_into(*model, model->progress, model->progress_user, [&](const kkm::Params& params) {
        const std::shared_ptr<const kkm::FittedState> state = kkm::fitted_state(model);
        const kkm::FittedModel* previous = state && model->params == state->params ? state->model.get() : nullptr;
        return kkm::partial_fit(params, previous, kkm::ConstMatrix{X, n, d}, w);
    });
    KKM_API_END
}

kkm_status kkm_fit_graph(kkm_model* model, int64_t n, const int64_t* indptr, const int64_t* indices,
                         const float* values) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    kkm::require_pointer(indptr, "indptr");
    if (n < 1) kkm::invalid_argument("n=" + std::to_string(n) + " nodes; a graph needs at least one");
    if (n > INT32_MAX) {
        kkm::invalid_argument("n=" + std::to_string(n) + " nodes exceeds the 2147483647 the graph kernels index");
    }
    if (indptr[n] > 0) kkm::require_pointer(indices, "indices");
    if (model->start.given()) {
        kkm::invalid_argument(
            "kkm_fit_graph does not start from a given partition (kkm_set_init_labels / kkm_set_init_centres); "
            "clear it (NULL) first");
    }
    const kkm::graph::CsrView graph{n, indptr, indices, values};
    kkm::fit_into(*model, model->progress, model->progress_user,
                  [&](const kkm::Params& params) { return kkm::fit_graph_model(params, graph); });
    KKM_API_END
}

kkm_status kkm_assign(const kkm_model* model, const float* X, int64_t n, int64_t d, int32_t* labels, float* distances) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    check_assign_input(f, X, n, d, labels, "labels", sizeof(float));
    const kkm::ConstMatrix view{X, n, d};
    kkm::require_finite(view, "X");
    // The distances are checked even when not wanted (where the model can measure them).
    std::vector<float> own(distances == nullptr && measures(f) ? static_cast<size_t>(n) : 0);
    float* dist = distances != nullptr ? distances : own.empty() ? nullptr : own.data();
    f.assign(view, labels, dist, assign_threads(f));
    if (dist != nullptr) require_computed(dist, n, 1, false, "distance to its nearest centre");
    KKM_API_END
}

kkm_status kkm_assign_f64(const kkm_model* model, const double* X, int64_t n, int64_t d, int32_t* labels,
                          double* distances) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    check_assign_input(f, X, n, d, labels, "labels", sizeof(double));
    const kkm::Matrix converted = kkm::to_float32(X, n, d, "X");
    std::vector<float> dist(distances != nullptr || measures(f) ? static_cast<size_t>(n) : 0);
    f.assign(converted.view(), labels, dist.empty() ? nullptr : dist.data(), assign_threads(f));
    if (!dist.empty()) require_computed(dist.data(), n, 1, false, "distance to its nearest centre");
    if (distances != nullptr) std::copy(dist.begin(), dist.end(), distances);
    KKM_API_END
}

kkm_status kkm_distances(const kkm_model* model, const float* X, int64_t n, int64_t d, float* out, int64_t out_len) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    check_assign_input(f, X, n, d, out, "out", sizeof(float));
    check_distances_output(f, n, out_len, sizeof(float));
    const kkm::ConstMatrix view{X, n, d};
    kkm::require_finite(view, "X");
    f.distances(view, out, assign_threads(f));
    require_distances(out, n, f.params().k);
    KKM_API_END
}

kkm_status kkm_distances_f64(const kkm_model* model, const double* X, int64_t n, int64_t d, double* out,
                             int64_t out_len) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    check_assign_input(f, X, n, d, out, "out", sizeof(double));
    check_distances_output(f, n, out_len, sizeof(double));
    const kkm::Matrix converted = kkm::to_float32(X, n, d, "X");
    std::vector<float> all(static_cast<size_t>(n * f.params().k));
    f.distances(converted.view(), all.data(), assign_threads(f));
    require_distances(all.data(), n, f.params().k);
    std::copy(all.begin(), all.end(), out);
    KKM_API_END
}

kkm_status kkm_transform(const kkm_model* model, const float* X, int64_t n, int64_t d, float* out, int64_t out_len) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    check_assign_input(f, X, n, d, out, "out", sizeof(float));
    if (f.feature_dim() == 0) f.transform(kkm::ConstMatrix{X, n, d}, out, 1);  // throws: no map
    kkm::require_product(n, "n", f.feature_dim(), "feature_dim", sizeof(float), "out");
    if (out_len < n * f.feature_dim()) {
        kkm::invalid_argument("out_len=" + std::to_string(out_len) + " is too small for out: n x feature_dim = " +
                              std::to_string(n) + " x " + std::to_string(f.feature_dim()) + " = " +
                              std::to_string(n * f.feature_dim()) + " floats are needed");
    }
    const kkm::ConstMatrix view{X, n, d};
    kkm::require_finite(view, "X");
    f.transform(view, out, assign_threads(f));
    require_computed(out, n, f.feature_dim(), false, "feature");
    KKM_API_END
}

kkm_status kkm_get_n_train(const kkm_model* model, int64_t* n) {
    return fitted_value(model, n, "n", [](const kkm::FittedModel& f) { return f.n_train(); });
}

kkm_status kkm_get_n_features(const kkm_model* model, int64_t* d) {
    return fitted_value(model, d, "d", [](const kkm::FittedModel& f) { return f.input_dim(); });
}

kkm_status kkm_get_k(const kkm_model* model, int32_t* k) {
    return fitted_value(model, k, "k", [](const kkm::FittedModel& f) { return static_cast<int32_t>(f.params().k); });
}

kkm_status kkm_get_labels(const kkm_model* model, int32_t* labels, int64_t len) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    if (f.n_train() > 0) kkm::require_pointer(labels, "labels");  // none to copy: a rank without rows
    if (len < f.n_train()) {
        kkm::invalid_argument("len=" + std::to_string(len) + " is too small for labels: n_train=" +
                              std::to_string(f.n_train()) + " values are needed");
    }
    std::copy(f.report().labels.begin(), f.report().labels.end(), labels);
    KKM_API_END
}

kkm_status kkm_get_objective(const kkm_model* model, double* objective) {
    return fitted_value(model, objective, "objective", [](const kkm::FittedModel& f) { return f.report().objective; });
}

kkm_status kkm_get_iterations(const kkm_model* model, int32_t* iterations) {
    return fitted_value(model, iterations, "iterations",
                        [](const kkm::FittedModel& f) { return f.report().iterations; });
}

kkm_status kkm_get_feature_dim(const kkm_model* model, int64_t* dim) {
    return fitted_value(model, dim, "dim", [](const kkm::FittedModel& f) { return f.feature_dim(); });
}

kkm_status kkm_get_cluster_sizes(const kkm_model* model, double* sizes, int64_t len) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    kkm::require_pointer(sizes, "sizes");
    if (len < f.params().k) {
        kkm::invalid_argument("len=" + std::to_string(len) +
                              " is too small for sizes: k=" + std::to_string(f.params().k) + " values are needed");
    }
    std::copy(f.report().mass.begin(), f.report().mass.end(), sizes);
    KKM_API_END
}

kkm_status kkm_get_search(const kkm_model* model, double* gammas, int32_t* ks, double* scores, int32_t* criteria,
                          int64_t len, int64_t* count) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    kkm::require_pointer(count, "count");
    const std::vector<kkm::SearchPoint>& scan = f.report().search;
    const auto need = static_cast<int64_t>(scan.size());
    const bool wanted = gammas != nullptr || ks != nullptr || scores != nullptr || criteria != nullptr;
    if (wanted && len < need) {
        kkm::invalid_argument("len=" + std::to_string(len) + " is too small: the search scored " +
                              std::to_string(need) + " candidates");
    }
    *count = need;
    for (size_t i = 0; wanted && i < scan.size(); ++i) {
        if (gammas != nullptr) gammas[i] = scan[i].gamma;
        if (ks != nullptr) ks[i] = static_cast<int32_t>(scan[i].k);
        if (scores != nullptr) scores[i] = scan[i].score;
        if (criteria != nullptr) criteria[i] = static_cast<int32_t>(scan[i].criterion);
    }
    KKM_API_END
}

kkm_status kkm_get_timings(const kkm_model* model, char* buf, size_t len, size_t* out_len) {
    KKM_API_BEGIN
    const auto held = fitted(model);
    const kkm::FittedModel& f = *held;
    std::ostringstream os;
    os.imbue(std::locale::classic());
    os.setf(std::ios::fixed);
    os.precision(4);
    double total = 0;
    for (const auto& [stage, seconds] : f.report().timings) {
        os << stage << '=' << seconds << ' ';
        total += seconds;
    }
    os << "total=" << total;
    copy_string(os.str(), buf, len, out_len);
    KKM_API_END
}

kkm_status kkm_set_progress(kkm_model* model, kkm_progress_fn callback, void* user_data) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    model->progress = callback;
    model->progress_user = user_data;
    KKM_API_END
}

kkm_status kkm_save_buffer(const kkm_model* model, void* buffer, int64_t capacity, int64_t* size) {
    KKM_API_BEGIN
    fitted(model);  // NOT_FITTED first
    const std::shared_ptr<const kkm::FittedState> state = kkm::fitted_state(model);
    kkm::require_pointer(size, "size");
    const std::vector<unsigned char> bytes = kkm::save_model(state->params, *state->model);
    *size = static_cast<int64_t>(bytes.size());
    if (buffer == nullptr && capacity == 0) return KKM_OK;  // size query
    kkm::require_pointer(buffer, "buffer");
    if (capacity < *size) {
        kkm::invalid_argument("capacity=" + std::to_string(capacity) + " bytes is too small for buffer: " +
                              std::to_string(*size) + " bytes are needed (query with buffer=NULL, capacity=0)");
    }
    std::memcpy(buffer, bytes.data(), bytes.size());
    KKM_API_END
}

kkm_status kkm_load_buffer(kkm_model* model, const void* buffer, int64_t size) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    if (size < 0) kkm::invalid_argument("size=" + std::to_string(size) + " must be >= 0");
    if (size > 0) kkm::require_pointer(buffer, "buffer");  // an empty buffer is a FORMAT error below
    static const unsigned char kEmpty = 0;
    if (buffer == nullptr) buffer = &kEmpty;
    install(model, kkm::load_model(std::span<const unsigned char>(static_cast<const unsigned char*>(buffer),
                                                                  static_cast<size_t>(size))));
    KKM_API_END
}

kkm_status kkm_save(const kkm_model* model, const char* path) {
    KKM_API_BEGIN
    fitted(model);  // NOT_FITTED first
    const std::shared_ptr<const kkm::FittedState> state = kkm::fitted_state(model);
    kkm::require_pointer(path, "path");
    kkm::write_file(path, kkm::save_model(state->params, *state->model));
    KKM_API_END
}

kkm_status kkm_load(kkm_model* model, const char* path) {
    KKM_API_BEGIN
    kkm::require_pointer(model, "model");
    kkm::require_pointer(path, "path");
    const uint64_t max_bytes = static_cast<uint64_t>(model->params.typed().max_memory_mb) << 20;
    install(model, kkm::load_model(kkm::read_file(path, max_bytes)));
    KKM_API_END
}

kkm_status kkm_adjusted_rand_index(const int32_t* a, const int32_t* b, int64_t n, double* out) {
    return partition_score(a, b, n, out, kkm::adjusted_rand_index);
}

kkm_status kkm_normalized_mutual_info(const int32_t* a, const int32_t* b, int64_t n, double* out) {
    return partition_score(a, b, n, out, kkm::normalized_mutual_info);
}

}  // extern "C"
