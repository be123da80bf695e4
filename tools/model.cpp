#include "model.h"

#include <unistd.h>

#include <cstdio>
#include <string_view>

#include "core/system_memory.h"
#include "data_io.h"

namespace kkm_tool {
namespace {

/// Calls a "write text into (buf, len), report the needed length" getter and returns the text.
template <typename Getter>
std::string read_text(Getter getter) {
    std::string buf(128, '\0');
    size_t needed = 0;
    kkm_status status = getter(buf.data(), buf.size(), &needed);
    if (status != KKM_OK && needed >= buf.size()) {
        buf.assign(needed + 1, '\0');
        status = getter(buf.data(), buf.size(), &needed);
    }
    check(status);
    buf.resize(needed);
    return buf;
}

std::string describe(kkm_status status) {
    const std::string message = kkm_last_error();
    const std::string name = kkm_status_string(status);
    return message.empty() ? name : message + " (" + name + ")";
}

}  // namespace

ApiError::ApiError(kkm_status s, const std::string& message) : std::runtime_error(message), status(s) {}

void check(kkm_status status) {
    if (status != KKM_OK) throw ApiError(status, describe(status));
}

Model::Model() {
    kkm_model* raw = nullptr;
    check(kkm_create(&raw));
    handle_.reset(raw);
}

namespace {

/// kkm_progress_fn: "\r  stage        [#########...........]  45%" on stderr, cleared at "done".
int draw_progress_bar(const char* stage, double fraction, void*) {
    constexpr int kWidth = 30;
    if (std::string_view(stage) == "done") {
        std::fprintf(stderr, "\r%*s\r", kWidth + 28, "");
        return 0;
    }
    const int filled = static_cast<int>(fraction * kWidth + 0.5);
    std::fprintf(stderr, "\r  %-14s [%.*s%.*s] %3d%%", stage, filled, "##############################", kWidth - filled,
                 "..............................", static_cast<int>(fraction * 100 + 0.5));
    std::fflush(stderr);
    return 0;
}

}  // namespace

void Model::show_progress_bar() {
    if (isatty(fileno(stderr)) != 0) check(kkm_set_progress(handle_.get(), &draw_progress_bar, nullptr));
}

void Model::set_params(const std::string& params) {
    check(kkm_set_params(handle_.get(), params.c_str()));
}

void Model::fit(const Rows& data) {
    check(kkm_fit(handle_.get(), data.data, data.rows, data.cols, nullptr));
}

std::vector<int32_t> Model::assign(const Rows& data) const {
    std::vector<int32_t> out(static_cast<size_t>(data.rows));
    check(kkm_assign(handle_.get(), data.data, data.rows, data.cols, out.data(), nullptr));
    return out;
}

void Model::save(const std::string& path) const {
    check(kkm_save(handle_.get(), path.c_str()));
}

void Model::load(const std::string& path) {
    check(kkm_load(handle_.get(), path.c_str()));
}

int64_t Model::n_features() const {
    int64_t d = 0;
    check(kkm_get_n_features(handle_.get(), &d));
    return d;
}

std::string Model::param(const char* key) const {
    return read_text([this, key](char* buf, size_t len, size_t* needed) {
        return kkm_get_param(handle_.get(), key, buf, len, needed);
    });
}

uint64_t Model::max_input_bytes() const {
    const std::string budget = param("max_memory_mb");
    return static_cast<uint64_t>(budget == "auto" ? kkm::auto_memory_mb() : std::stoll(budget)) << 20;
}

std::string Model::timings() const {
    return read_text(
        [this](char* buf, size_t len, size_t* needed) { return kkm_get_timings(handle_.get(), buf, len, needed); });
}

std::vector<int32_t> Model::labels() const {
    int64_t n = 0;
    check(kkm_get_n_train(handle_.get(), &n));
    std::vector<int32_t> out(static_cast<size_t>(n));
    check(kkm_get_labels(handle_.get(), out.data(), n));
    return out;
}

std::vector<double> Model::cluster_sizes() const {
    int32_t k = 0;
    check(kkm_get_k(handle_.get(), &k));
    std::vector<double> out(static_cast<size_t>(k));
    check(kkm_get_cluster_sizes(handle_.get(), out.data(), k));
    return out;
}

std::vector<SearchEntry> Model::search() const {
    int64_t count = 0;
    check(kkm_get_search(handle_.get(), nullptr, nullptr, nullptr, nullptr, 0, &count));
    const auto n = static_cast<size_t>(count);
    std::vector<double> gammas(n), scores(n);
    std::vector<int32_t> ks(n), criteria(n);
    check(kkm_get_search(handle_.get(), gammas.data(), ks.data(), scores.data(), criteria.data(), count, &count));
    std::vector<SearchEntry> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = {gammas[i], ks[i], scores[i], criteria[i]};
    return out;
}

double Model::objective() const {
    double value = 0;
    check(kkm_get_objective(handle_.get(), &value));
    return value;
}

int32_t Model::iterations() const {
    int32_t value = 0;
    check(kkm_get_iterations(handle_.get(), &value));
    return value;
}

int64_t Model::feature_dim() const {
    int64_t value = 0;
    check(kkm_get_feature_dim(handle_.get(), &value));
    return value;
}

double adjusted_rand_index(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    double value = 0;
    check(kkm_adjusted_rand_index(a.data(), b.data(), static_cast<int64_t>(a.size()), &value));
    return value;
}

double normalized_mutual_info(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    double value = 0;
    check(kkm_normalized_mutual_info(a.data(), b.data(), static_cast<int64_t>(a.size()), &value));
    return value;
}

}  // namespace kkm_tool
