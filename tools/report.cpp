#include "report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <thread>

#include "model.h"

namespace kkm_tool {
namespace {

std::string format(const char* spec, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, spec, value);
    return buf;
}

/// A timing value: "0.123 s" when numeric, the raw text otherwise.
std::string timing_value(const std::string& raw) {
    char* end = nullptr;
    const double seconds = std::strtod(raw.c_str(), &end);
    if (raw.empty() || *end != '\0') return raw;
    return fixed(seconds, 3) + " s";
}

/// "0" means all cores (one thread per 1.5e6 units of work at most): say how many.
std::string threads_text(const std::string& threads) {
    if (threads != "0") return threads;
    return "0 (auto: up to " + std::to_string(std::thread::hardware_concurrency()) + " cores)";
}

const char* criterion_name(int32_t criterion) {
    switch (criterion) {
        case KKM_SEARCH_STABILITY: return "stability";
        case KKM_SEARCH_MATR: return "matr";
        default: return "?";
    }
}

}  // namespace

double Stopwatch::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::begin(std::string_view what) {
    step_ = Stopwatch();
    if (enabled_) std::cerr << "kkmeans: " << what << "..." << std::endl;
}

double Progress::end(std::string_view what, std::string_view detail) {
    const double seconds = step_.seconds();
    if (enabled_) {
        std::cerr << "kkmeans: " << what << " done in " << fixed(seconds, 3) << " s";
        if (!detail.empty()) std::cerr << " (" << detail << ")";
        std::cerr << std::endl;
    }
    return seconds;
}

std::string fixed(double value, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, value);
    return buf;
}

std::string general(double value) {
    return format("%.6g", value);
}

std::string join_sizes(const std::vector<double>& sizes) {
    std::string text;
    for (const double size : sizes) {
        if (!text.empty()) text += ' ';
        text += general(size);
    }
    return text;
}

std::vector<std::pair<std::string, std::string>> parse_timings(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> out;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t start = text.find_first_not_of(" \t\n", pos);
        if (start == std::string_view::npos) break;
        const size_t end = std::min(text.find_first_of(" \t\n", start), text.size());
        const std::string_view pair = text.substr(start, end - start);
        const size_t eq = pair.find('=');
        out.emplace_back(std::string(pair.substr(0, eq)),
                         eq == std::string_view::npos ? std::string() : std::string(pair.substr(eq + 1)));
        pos = end;
    }
    return out;
}

void print_field(std::ostream& out, std::string_view key, std::string_view value) {
    out << std::left << std::setw(16) << key << ' ' << value << '\n';
}

void print_seconds(std::ostream& out, std::string_view what, double seconds) {
    print_field(out, "time " + std::string(what), fixed(seconds, 3) + " s");
}

void print_model_summary(std::ostream& out, const Model& model) {
    print_field(out, "method", model.param("method"));
    print_field(out, "kernel", model.param("kernel"));
    print_field(out, "k", model.param("k"));
    const std::string kernel = model.param("kernel");
    if (kernel == "knn" || kernel == "heat") {  // the graph kernels: their graph, not m or gamma
        print_field(out, "neighbors", model.param("neighbors"));
        print_field(out, "graph", model.param("graph"));
        print_field(out, "heat_rank", model.param("heat_rank"));
        if (kernel == "heat") print_field(out, "heat_t", model.param("heat_t"));
    } else {
        print_field(out, "m", model.param("m"));
        print_field(out, "gamma", model.param("gamma"));
    }
    print_field(out, "seed", model.param("seed"));
    print_field(out, "threads", threads_text(model.param("threads")));
    print_field(out, "objective", general(model.objective()));
    print_field(out, "iterations", std::to_string(model.iterations()));
    print_field(out, "feature_dim", std::to_string(model.feature_dim()));
    print_field(out, "cluster sizes", join_sizes(model.cluster_sizes()));
    print_search(out, model);
}

void print_search(std::ostream& out, const Model& model) {
    const std::vector<SearchEntry> scan = model.search();
    if (scan.empty()) return;
    print_field(
        out, "search",
        std::to_string(scan.size()) + " candidates; chose gamma=" + model.param("gamma") + " k=" + model.param("k"));
    // The chosen candidate's row is marked; get_param writes gamma with round-trip digits.
    const double chosen_gamma = std::strtod(model.param("gamma").c_str(), nullptr);
    const long chosen_k = std::strtol(model.param("k").c_str(), nullptr, 10);
    char line[128];
    std::snprintf(line, sizeof line, "  %-14s %4s %12s  %s\n", "gamma", "k", "score", "criterion");
    out << line;
    for (const SearchEntry& e : scan) {
        const bool chosen = e.gamma == chosen_gamma && e.k == chosen_k;
        std::snprintf(line, sizeof line, "  %-14.6g %4d %12.6g  %s%s\n", e.gamma, static_cast<int>(e.k), e.score,
                      criterion_name(e.criterion), chosen ? "  (chosen)" : "");
        out << line;
    }
}

void print_stage_times(std::ostream& out, const Model& model) {
    for (const auto& [stage, value] : parse_timings(model.timings())) {
        print_field(out, "  " + stage, timing_value(value));
    }
}

}  // namespace kkm_tool
