/* kkmeans.i — the one SWIG interface of the R, Java and C# bindings.
 *
 * It wraps include/kkmeans.h as one class, NativeModel: the constructor calls kkm_create, the
 * destructor kkm_destroy, and every method calls the C API and turns a non-OK status into a
 * C++ kkm_swig::Failure carrying kkm_last_error()'s message. Each language's section
 * (java.i, csharp.i, r.i, included below) supplies
 *   - the %exception that turns a Failure into the language's exception
 *     (KKM_ERR_INVALID_ARGUMENT → its argument exception),
 *   - typemaps for the (pointer, length) pairs below, so that one language array crosses
 *     as one argument without an element-by-element copy where the language allows it, and
 *   - a class kkm_swig::Listener and typemaps that make the `listener` argument of the
 *     fit_progress methods below one language object (R: list(function or NULL, unwind token);
 *     Java: a kkmeans.ProgressListener; C#: a delegate). Listener::call(stage, fraction, self) is the
 *     kkm_progress_fn: it must never throw nor longjmp (the library calls it between its
 *     own C++ frames) and returns non-zero to cancel; Listener::outcome(status) maps the
 *     fit's status (KKM_OK or KKM_ERR_CANCELLED) to what fit_progress returns.
 * The generated classes stay internal to each binding; users see its idiomatic layer.
 *
 * Sizes are int64_t (never long: SWIG maps long to 32 bits in Java and C#). Lengths are
 * checked against n and d here, so a short array is an argument error, never an overread.
 * The CSR arrays of fit_graph hold int64_t (kkm_swig::Index): Java long[], C# long[], R
 * integer or numeric vectors; their lengths are checked against n + 1 and indptr[n].
 * Compile the wrapper as C++ (swig -c++).
 */
%module kkmeans

%{
#include <cstdint>
#include <string>
#include <vector>

#include "kkmeans.h"

namespace kkm_swig {

/// The element type of the CSR arrays of fit_graph. SWIG sees an opaque class of this name (declared
/// after this block): with the int64_t of its stdint.i (long long) it would cast these arrays to
/// long long*, which is not int64_t* (long) on LP64 Linux. Each language's typemaps pass them.
using Index = int64_t;

/// A failed C API call: its status and the library's message.
struct Failure {
    kkm_status status;
    std::string message;
};

inline void check(kkm_status status) {
    if (status != KKM_OK) throw Failure{status, kkm_last_error()};
}

inline void fail(kkm_status status, const std::string& message) {
    throw Failure{status, message};
}

/// An array of `len` elements must hold n × d values.
inline void require_length(const char* what, int64_t len, int64_t n, int64_t d) {
    if (n < 0 || d < 0 || (d > 0 && n > INT64_MAX / d) || len != n * d) {
        fail(KKM_ERR_INVALID_ARGUMENT,
             std::string(what) + " has " + std::to_string(len) + " values but n x d = " +
                 std::to_string(n) + " x " + std::to_string(d) + " needs " +
                 (n >= 0 && d >= 0 && (d == 0 || n <= INT64_MAX / d) ? std::to_string(n * d)
                                                                     : std::string("more")));
    }
}

/// A graph in compressed sparse rows: indptr must hold n + 1 offsets, indices and values
/// indptr[n] entries each (the library checks the offsets and entries themselves). n < 1 is
/// left to the library, which refuses it before reading anything.
inline void require_csr(int64_t n, const Index* indptr, int64_t indptr_len, int64_t indices_len,
                        int64_t values_len) {
    if (n < 1) return;
    if (n == INT64_MAX || indptr_len != n + 1) {
        fail(KKM_ERR_INVALID_ARGUMENT, "indptr has " + std::to_string(indptr_len) + " values but n + 1 = " +
                                           (n == INT64_MAX ? std::string("more") : std::to_string(n + 1)) +
                                           " are needed (one offset per node, then the number of entries)");
    }
    const int64_t entries = indptr[n];
    if (indices_len != entries) {
        fail(KKM_ERR_INVALID_ARGUMENT, "indices has " + std::to_string(indices_len) + " values but indptr[n] = " +
                                           std::to_string(entries) + " entries are needed");
    }
    if (values_len != entries) {
        fail(KKM_ERR_INVALID_ARGUMENT, "values has " + std::to_string(values_len) + " values but indptr[n] = " +
                                           std::to_string(entries) + " entries are needed");
    }
}

inline void require_at_least(const char* what, int64_t len, int64_t need) {
    if (len < need) {
        fail(KKM_ERR_INVALID_ARGUMENT, std::string(what) + " has room for " + std::to_string(len) +
                                           " values but " + std::to_string(need) + " are needed");
    }
}

/// The library's message with C's spellings of non-finite numbers (printf's "nan", "-nan",
/// "inf", "-inf", whole words only) in the host language's: `nan_text` for either NaN and
/// `inf_text` (with its sign) for an infinity; e.g. "X has a non-finite value (-nan) at row 5"
/// reads "(NaN)" in Java, C# and R.
inline std::string host_numbers(const std::string& message, const char* nan_text, const char* inf_text) {
    auto word_char = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    };
    std::string out;
    out.reserve(message.size());
    size_t i = 0;
    while (i < message.size()) {
        const bool start = i == 0 || !word_char(message[i - 1]);
        const bool minus = message[i] == '-';
        const size_t at = i + (minus ? 1 : 0);
        if (start && at + 3 <= message.size() && (at + 3 == message.size() || !word_char(message[at + 3]))) {
            const std::string word = message.substr(at, 3);
            if (word == "nan") {
                out += nan_text;
                i = at + 3;
                continue;
            }
            if (word == "inf") {
                if (minus) out += '-';
                out += inf_text;
                i = at + 3;
                continue;
            }
        }
        out += message[i++];
    }
    return out;
}

inline std::string text_of(kkm_status (*get)(const kkm_model*, const char*, char*, size_t, size_t*),
                           const kkm_model* model, const char* key) {
    size_t need = 0;
    check(get(model, key, nullptr, 0, &need));
    std::vector<char> buf(need + 1);
    check(get(model, key, buf.data(), buf.size(), nullptr));
    return std::string(buf.data());
}

/// Installs a progress callback for one fit and removes it on every path out (a callback
/// left installed would point at the caller's stack after the fit).
class ProgressInstalled {
public:
    ProgressInstalled(kkm_model* model, kkm_progress_fn callback, void* user_data) : model_(model) {
        check(kkm_set_progress(model, callback, user_data));
    }
    ProgressInstalled(const ProgressInstalled&) = delete;
    ProgressInstalled& operator=(const ProgressInstalled&) = delete;
    ~ProgressInstalled() { kkm_set_progress(model_, nullptr, nullptr); }

private:
    kkm_model* model_;
};

/// Runs fit() (a kkm_fit call) with `listener` as the model's progress callback. Returns
/// listener.outcome(status) for KKM_OK and KKM_ERR_CANCELLED (the model is unchanged after a
/// cancel); throws a Failure for any other status.
template <class Listener, class Fit>
int32_t fit_listened(kkm_model* model, Listener& listener, Fit fit) {
    kkm_status status;
    {
        const ProgressInstalled installed(model, &Listener::call, &listener);
        status = fit();
    }
    if (status != KKM_OK && status != KKM_ERR_CANCELLED) check(status);
    return listener.outcome(status);
}

inline kkm_status timings_of(const kkm_model* model, const char*, char* buf, size_t len,
                             size_t* out_len) {
    return kkm_get_timings(model, buf, len, out_len);
}

}  // namespace kkm_swig
%}

%include <stdint.i>
%include <std_string.i>

/* SWIG only needs the name (see kkm_swig::Index above); each language maps the arrays. */
namespace kkm_swig { class Index; }

#if defined(SWIGJAVA)
%include "java.i"
#elif defined(SWIGCSHARP)
%include "csharp.i"
#elif defined(SWIGR)
%include "r.i"
#endif

%rename(NativeModel) kkm_model;
%nodefaultctor kkm_model;
%nodefaultdtor kkm_model;
struct kkm_model {};

%extend kkm_model {
    kkm_model() {
        kkm_model* model = nullptr;
        kkm_swig::check(kkm_create(&model));
        return model;
    }
    ~kkm_model() { kkm_destroy($self); }

    /* Parameters: "key", "value" or "key=value key=value ..." (all-or-nothing). */
    void set_param(const char* key, const char* value) { kkm_swig::check(kkm_set_param($self, key, value)); }
    void set_params(const char* params) { kkm_swig::check(kkm_set_params($self, params)); }
    /* A parameter's value; "auto" reports what the last fit resolved it to. */
    std::string get_param(const char* key) const { return kkm_swig::text_of(kkm_get_param, $self, key); }

    /* Fit on n × d row-major values; weights: n values (the _weighted forms). */
    void fit(const float* data, int64_t data_len, int64_t n, int64_t d) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::check(kkm_fit($self, data, n, d, nullptr));
    }
    void fit_weighted(const float* data, int64_t data_len, int64_t n, int64_t d,
                      const float* weights, int64_t weights_len) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_length("weights", weights_len, n, 1);
        kkm_swig::check(kkm_fit($self, data, n, d, weights));
    }
    void fit_f64(const double* data, int64_t data_len, int64_t n, int64_t d) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::check(kkm_fit_f64($self, data, n, d, nullptr));
    }
    void fit_weighted_f64(const double* data, int64_t data_len, int64_t n, int64_t d,
                          const double* weights, int64_t weights_len) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_length("weights", weights_len, n, 1);
        kkm_swig::check(kkm_fit_f64($self, data, n, d, weights));
    }

    /* As fit, fit_weighted, fit_f64 and fit_weighted_f64, reporting progress to `listener`,
     * which may cancel the fit (see the language's section for what a listener is and what
     * the returned code means; KKM_ERR_CANCELLED leaves the model unchanged). Any other
     * failure throws as the plain fits do. */
    int32_t fit_progress(const float* data, int64_t data_len, int64_t n, int64_t d,
                         kkm_swig::Listener* listener) {
        kkm_swig::require_length("data", data_len, n, d);
        return kkm_swig::fit_listened($self, *listener, [&] { return kkm_fit($self, data, n, d, nullptr); });
    }
    int32_t fit_weighted_progress(const float* data, int64_t data_len, int64_t n, int64_t d,
                                  const float* weights, int64_t weights_len, kkm_swig::Listener* listener) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_length("weights", weights_len, n, 1);
        return kkm_swig::fit_listened($self, *listener, [&] { return kkm_fit($self, data, n, d, weights); });
    }
    int32_t fit_f64_progress(const double* data, int64_t data_len, int64_t n, int64_t d,
                             kkm_swig::Listener* listener) {
        kkm_swig::require_length("data", data_len, n, d);
        return kkm_swig::fit_listened($self, *listener, [&] { return kkm_fit_f64($self, data, n, d, nullptr); });
    }
    int32_t fit_weighted_f64_progress(const double* data, int64_t data_len, int64_t n, int64_t d,
                                      const double* weights, int64_t weights_len, kkm_swig::Listener* listener) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_length("weights", weights_len, n, 1);
        return kkm_swig::fit_listened($self, *listener, [&] { return kkm_fit_f64($self, data, n, d, weights); });
    }

    /* Fit kernel=knn or kernel=heat on a graph instead of points (kkm_fit_graph): the
     * symmetric n × n affinity matrix in compressed sparse rows, indptr (n + 1 offsets from
     * 0), indices and values (indptr[n] entries each: node i's neighbours are
     * indices[indptr[i] .. indptr[i+1]) with weights values[...]). The fitted model assigns
     * affinity rows: assign and distances take rows of n values (d = n). fit_graph_progress
     * reports to `listener` as fit_progress does. */
    void fit_graph(int64_t n, const kkm_swig::Index* indptr, int64_t indptr_len, const kkm_swig::Index* indices,
                   int64_t indices_len, const float* values, int64_t values_len) {
        kkm_swig::require_csr(n, indptr, indptr_len, indices_len, values_len);
        kkm_swig::check(kkm_fit_graph($self, n, indptr, indices, values));
    }
    int32_t fit_graph_progress(int64_t n, const kkm_swig::Index* indptr, int64_t indptr_len, const kkm_swig::Index* indices,
                               int64_t indices_len, const float* values, int64_t values_len,
                               kkm_swig::Listener* listener) {
        kkm_swig::require_csr(n, indptr, indptr_len, indices_len, values_len);
        return kkm_swig::fit_listened($self, *listener, [&] { return kkm_fit_graph($self, n, indptr, indices, values); });
    }

    /* Streaming (kkm_partial_fit): one batch of n × d row-major float32 values, going on from
     * the model's stream (or starting one: the first batch is fitted as fit fits it, later
     * batches move the centres by Sculley's mini-batch update). Feature methods only
     * (nystrom, sketch, rff); the library refuses the others naming kkm_partial_fit. The
     * _progress forms report to `listener` as fit_progress does. */
    void partial_fit(const float* data, int64_t data_len, int64_t n, int64_t d) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::check(kkm_partial_fit($self, data, n, d, nullptr));
    }
    void partial_fit_weighted(const float* data, int64_t data_len, int64_t n, int64_t d,
                              const float* weights, int64_t weights_len) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_length("weights", weights_len, n, 1);
        kkm_swig::check(kkm_partial_fit($self, data, n, d, weights));
    }
    int32_t partial_fit_progress(const float* data, int64_t data_len, int64_t n, int64_t d,
                                 kkm_swig::Listener* listener) {
        kkm_swig::require_length("data", data_len, n, d);
        return kkm_swig::fit_listened($self, *listener, [&] { return kkm_partial_fit($self, data, n, d, nullptr); });
    }
    int32_t partial_fit_weighted_progress(const float* data, int64_t data_len, int64_t n, int64_t d,
                                          const float* weights, int64_t weights_len, kkm_swig::Listener* listener) {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_length("weights", weights_len, n, 1);
        return kkm_swig::fit_listened($self, *listener, [&] { return kkm_partial_fit($self, data, n, d, weights); });
    }

    /* Fit on a file of raw little-endian float32 rows of d values (kkm_fit_file): the library
     * maps it read-only and reads it in place, so the rows never cross the language boundary.
     * weights: one per row of the file (the library checks the count against the file's n).
     * A missing or unreadable file is KKM_ERR_IO naming the path. */
    void fit_file(const char* path, int64_t d) {
        kkm_swig::check(kkm_fit_file($self, path, d, nullptr, 0));
    }
    void fit_file_weighted(const char* path, int64_t d, const float* weights, int64_t weights_len) {
        kkm_swig::check(kkm_fit_file($self, path, d, weights, weights_len));
    }
    int32_t fit_file_progress(const char* path, int64_t d, kkm_swig::Listener* listener) {
        return kkm_swig::fit_listened($self, *listener, [&] { return kkm_fit_file($self, path, d, nullptr, 0); });
    }
    int32_t fit_file_weighted_progress(const char* path, int64_t d, const float* weights, int64_t weights_len,
                                       kkm_swig::Listener* listener) {
        return kkm_swig::fit_listened($self, *listener,
                                      [&] { return kkm_fit_file($self, path, d, weights, weights_len); });
    }

    /* Nearest centre of each of n rows into labels (room for at least n; 0-based). Safe to
     * call from many threads on one fitted model. */
    void assign(const float* data, int64_t data_len, int64_t n, int64_t d,
                int32_t* labels, int64_t labels_len) const {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_at_least("labels", labels_len, n);
        kkm_swig::check(kkm_assign($self, data, n, d, labels, nullptr));
    }
    void assign_f64(const double* data, int64_t data_len, int64_t n, int64_t d,
                    int32_t* labels, int64_t labels_len) const {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_at_least("labels", labels_len, n);
        kkm_swig::check(kkm_assign_f64($self, data, n, d, labels, nullptr));
    }
    /* As assign, also writing each row's squared distance to its centre. */
    void assign_distances_f64(const double* data, int64_t data_len, int64_t n, int64_t d,
                              int32_t* labels, int64_t labels_len,
                              double* distances, int64_t distances_len) const {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::require_at_least("labels", labels_len, n);
        kkm_swig::require_at_least("distances", distances_len, n);
        kkm_swig::check(kkm_assign_f64($self, data, n, d, labels, distances));
    }
    /* Squared distance of each of n rows to every fitted centre (kkm_distances_f64) into
     * all_distances (room for at least n × k(); row-major: row i's distance to centre j at
     * i × k() + j). Each row's first minimum is at assign's label. */
    void distances_f64(const double* data, int64_t data_len, int64_t n, int64_t d,
                       double* all_distances, int64_t all_distances_len) const {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::check(kkm_distances_f64($self, data, n, d, all_distances, all_distances_len));
    }

    /* Fitted results. */
    int64_t n_train() const { int64_t v = 0; kkm_swig::check(kkm_get_n_train($self, &v)); return v; }
    int64_t n_features() const { int64_t v = 0; kkm_swig::check(kkm_get_n_features($self, &v)); return v; }
    int32_t k() const { int32_t v = 0; kkm_swig::check(kkm_get_k($self, &v)); return v; }
    double objective() const { double v = 0; kkm_swig::check(kkm_get_objective($self, &v)); return v; }
    int32_t iterations() const { int32_t v = 0; kkm_swig::check(kkm_get_iterations($self, &v)); return v; }
    int64_t feature_dim() const { int64_t v = 0; kkm_swig::check(kkm_get_feature_dim($self, &v)); return v; }
    /* Training labels (0-based) into labels (room for n_train()). */
    void labels(int32_t* labels, int64_t labels_len) const {
        kkm_swig::check(kkm_get_labels($self, labels, labels_len));
    }
    /* Weight of each cluster into sizes (room for k()). */
    void cluster_sizes(double* sizes, int64_t sizes_len) const {
        kkm_swig::check(kkm_get_cluster_sizes($self, sizes, sizes_len));
    }
    /* What the last fit's gamma=search / k=auto scored (kkm_get_search): search_count()
     * candidates in the order scanned (0 when the fit did not search), then one column per
     * call into an array of room for search_count(): each candidate's gamma (0 for a kernel
     * without one), k, score (higher is better) and criterion (KKM_SEARCH_STABILITY or
     * KKM_SEARCH_MATR). */
    int64_t search_count() const {
        int64_t count = 0;
        kkm_swig::check(kkm_get_search($self, nullptr, nullptr, nullptr, nullptr, 0, &count));
        return count;
    }
    void search_gammas(double* gammas, int64_t gammas_len) const {
        int64_t count = 0;
        kkm_swig::check(kkm_get_search($self, gammas, nullptr, nullptr, nullptr, gammas_len, &count));
    }
    void search_ks(int32_t* ks, int64_t ks_len) const {
        int64_t count = 0;
        kkm_swig::check(kkm_get_search($self, nullptr, ks, nullptr, nullptr, ks_len, &count));
    }
    void search_scores(double* scores, int64_t scores_len) const {
        int64_t count = 0;
        kkm_swig::check(kkm_get_search($self, nullptr, nullptr, scores, nullptr, scores_len, &count));
    }
    void search_criteria(int32_t* criteria, int64_t criteria_len) const {
        int64_t count = 0;
        kkm_swig::check(kkm_get_search($self, nullptr, nullptr, nullptr, criteria, criteria_len, &count));
    }
    /* "stage=seconds ..." of the last fit. */
    std::string timings() const { return kkm_swig::text_of(kkm_swig::timings_of, $self, ""); }

    /* Persistence through the library's model buffer: save_size() bytes, then save_buffer
     * into an array of that size; load_buffer replaces parameters and fitted state. */
    int64_t save_size() const {
        int64_t size = 0;
        kkm_swig::check(kkm_save_buffer($self, nullptr, 0, &size));
        return size;
    }
    void save_buffer(void* bytes, int64_t bytes_len) const {
        int64_t size = 0;
        kkm_swig::check(kkm_save_buffer($self, bytes, bytes_len, &size));
    }
    void load_buffer(const void* bytes, int64_t bytes_len) {
        kkm_swig::check(kkm_load_buffer($self, bytes, bytes_len));
    }
    /* Starting partition of the next fits (kkm_set_init_labels / kkm_set_init_centres): their
     * first restart starts from it instead of a k-means++ seeding. init_labels: one 0-based
     * cluster per training row; init_centres: k x d row-major values in the input space.
     * Setting one kind clears the other; clear_init() clears both. The fit checks them
     * against its data and parameters. */
    void set_init_labels(const int32_t* init_labels, int64_t init_labels_len) {
        kkm_swig::check(kkm_set_init_labels($self, init_labels, init_labels_len));
    }
    void set_init_centres(const float* init_centres, int64_t init_centres_len, int64_t k, int64_t d) {
        kkm_swig::require_length("centres", init_centres_len, k, d);
        kkm_swig::check(kkm_set_init_centres($self, init_centres, k, d));
    }
    void clear_init() { kkm_swig::check(kkm_set_init_labels($self, nullptr, 0)); }

    /* The fitted centres in the feature space of kkm_transform (nystrom, sketch, rff, kernel
     * heat): k() x feature_dim() float32 values, row-major, into centres_out (room for at least
     * that many). exact, minibatch and knn models have none (INVALID_ARGUMENT). */
    void centres(float* centres_out, int64_t centres_out_len) const {
        kkm_swig::check(kkm_get_centres($self, centres_out, centres_out_len));
    }

    void save(const char* path) const { kkm_swig::check(kkm_save($self, path)); }
    void load(const char* path) { kkm_swig::check(kkm_load($self, path)); }

    /* Library-level helpers. */
    static std::string version() { return kkm_version(); }
    static double adjusted_rand_index(const int32_t* a, int64_t a_len, const int32_t* b, int64_t b_len) {
        kkm_swig::require_length("b", b_len, a_len, 1);
        double v = 0;
        kkm_swig::check(kkm_adjusted_rand_index(a, b, a_len, &v));
        return v;
    }
    static double normalized_mutual_info(const int32_t* a, int64_t a_len, const int32_t* b, int64_t b_len) {
        kkm_swig::require_length("b", b_len, a_len, 1);
        double v = 0;
        kkm_swig::check(kkm_normalized_mutual_info(a, b, a_len, &v));
        return v;
    }
}
