// A small RAII wrapper over the public C API: owns one kkm_model, turns every failed status
// into an ApiError carrying kkm_last_error() and the status name.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kkmeans.h"

namespace kkm_tool {

struct Rows;

/// One candidate that gamma=search / k=auto scored (kkm_get_search).
struct SearchEntry {
    double gamma = 0;       ///< kernel scale (0 for a kernel without one)
    int32_t k = 0;          ///< number of clusters
    double score = 0;       ///< the criterion's score, higher is better
    int32_t criterion = 0;  ///< KKM_SEARCH_STABILITY or KKM_SEARCH_MATR
};

/// A failed library call: the message is kkm_last_error() followed by the status name.
struct ApiError : std::runtime_error {
    ApiError(kkm_status status, const std::string& message);
    kkm_status status;
};

/// Throws ApiError unless status is KKM_OK.
void check(kkm_status status);

class Model {
public:
    Model();  ///< kkm_create

    void set_params(const std::string& params);
    /// Draws a progress bar on stderr during fit (only when stderr is a terminal).
    void show_progress_bar();
    void fit(const Rows& data);
    std::vector<int32_t> assign(const Rows& data) const;
    void save(const std::string& path) const;  ///< kkm_save
    void load(const std::string& path);        ///< kkm_load
    int64_t n_features() const;

    /// Current text of a parameter; after a fit, "auto" parameters report resolved values.
    std::string param(const char* key) const;
    /// max_memory_mb in bytes: the most any input file may hold (read_file_bytes).
    uint64_t max_input_bytes() const;
    std::string timings() const;  ///< "stage=seconds ..." of the last fit
    std::vector<int32_t> labels() const;
    std::vector<double> cluster_sizes() const;
    /// What the last fit's gamma=search / k=auto scored, in scan order; empty without a search.
    std::vector<SearchEntry> search() const;
    double objective() const;
    int32_t iterations() const;
    int64_t feature_dim() const;

    /// The handle, for calls this wrapper does not cover (kkm_fit_mpi in kkmeans-mpi).
    kkm_model* handle() { return handle_.get(); }

private:
    struct Deleter {
        void operator()(kkm_model* model) const noexcept { kkm_destroy(model); }
    };
    std::unique_ptr<kkm_model, Deleter> handle_;
};

/// Adjusted Rand index and normalised mutual information of two labelings (same length).
double adjusted_rand_index(const std::vector<int32_t>& a, const std::vector<int32_t>& b);
double normalized_mutual_info(const std::vector<int32_t>& a, const std::vector<int32_t>& b);

}  // namespace kkm_tool
