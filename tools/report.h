// What the program prints: progress lines on stderr, the summary on stdout.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kkm_tool {

class Model;

/// Wall-clock seconds since construction.
class Stopwatch {
public:
    double seconds() const;

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// Short "kkmeans: doing X..." / "kkmeans: X done in 1.23 s" lines on stderr.
class Progress {
public:
    explicit Progress(bool enabled) : enabled_(enabled) {}
    /// Announces a step and restarts the step's clock.
    void begin(std::string_view what);
    /// Reports the step's end with an optional detail; returns its seconds.
    double end(std::string_view what, std::string_view detail = {});

private:
    bool enabled_;
    Stopwatch step_;
};

std::string fixed(double value, int digits);  ///< e.g. fixed(1.23456, 3) == "1.235"
std::string general(double value);            ///< shortest of %g with 6 significant digits
std::string join_sizes(const std::vector<double>& sizes);

/// "stage=seconds ..." pairs from kkm_get_timings, in order.
std::vector<std::pair<std::string, std::string>> parse_timings(std::string_view text);

/// Writes "key          value" with aligned values.
void print_field(std::ostream& out, std::string_view key, std::string_view value);

/// Writes "time <what>    1.234 s".
void print_seconds(std::ostream& out, std::string_view what, double seconds);

/// The fitted model's description: method, kernel, k, m, gamma, objective, iterations,
/// feature_dim, cluster sizes, and the search (print_search).
void print_model_summary(std::ostream& out, const Model& model);

/// After a gamma=search / k=auto fit: "search  N candidates; chose gamma=G k=K", then one
/// line per candidate (gamma, k, score, criterion; the chosen one marked "(chosen)") in scan
/// order. Nothing without a search.
void print_search(std::ostream& out, const Model& model);

/// One indented line per stage of the model's timings (the library's view of the fit).
void print_stage_times(std::ostream& out, const Model& model);

}  // namespace kkm_tool
