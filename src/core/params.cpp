#include "core/params.h"
#include "core/system_memory.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <locale>
#include <sstream>
#include <unordered_map>

#include "core/enum_text.h"
#include "core/error.h"

namespace kkm {
namespace {

constexpr double kIntMax = 2147483647.0;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The method's choices: auto, then every method.
const std::string& method_choices() {
    static const std::string text = "auto|" + choices_text<Method>();
    return text;
}

std::vector<ParamSpec> build_table() {
    // name, aliases, type, default, range, doc, min, max, min_exclusive, max_exclusive, choices
    return {
        {"k", "n_clusters centers", "int|auto", "8", "[1, 2147483647] or auto",
         "number of clusters; auto: chosen in [k_min, k_max] by the stability of fits on halves of a "
         "subsample (Lange et al. 2004), reported by kkm_get_k and kkm_get_search",
         1, kIntMax, false, false, nullptr},
        {"k_min", "", "int", "2", "[2, 2147483647]", "smallest k that k=auto considers", 2, kIntMax, false, false,
         nullptr},
        {"k_max", "", "int", "10", "[2, 2147483647]",
         "largest k that k=auto considers (at most half the search subsample: search_size/2, n/2)", 2, kIntMax, false,
         false, nullptr},
        {"method", "", "enum", "auto", method_choices().c_str(),
         "auto: exact for kernel=knn and heat, nystrom otherwise; exact: full kernel matrix (O(n^2); with "
         "knn/heat the sparse graph kernel, O(nnz) per iteration); nystrom: m landmarks (Calandriello & Rosasco "
         "2018; rank= for Wang, Gittens & Mahoney 2019); sketch: S k_Q(x) (Yin et al. 2022); rff: random "
         "Fourier features (rbf, laplacian); minibatch: truncated mini-batch kernel k-means (2024; not with "
         "kernel=knn, where its truncated centres collapse into one cluster)",
         0, 0, false, false, method_choices().c_str()},
        {"kernel", "", "enum", "rbf", choices_text<KernelType>().c_str(),
         "rbf exp(-gamma|x-y|^2); laplacian exp(-gamma|x-y|_1); polynomial (gamma x.y+coef0)^degree; "
         "linear x.y; cosine x.y/(|x||y|); precomputed: X is the kernel matrix; knn and heat: graph kernels on "
         "the neighbors-NN graph A of the rows (degrees D): knn is sigma D^-1 + D^-1 A D^-1 with degree "
         "weights, which minimises the normalized cut; heat is exp(-heat_t L), L = I - D^-1/2 A D^-1/2, "
         "through its top heat_rank eigenpairs",
         0, 0, false, false, choices_text<KernelType>().c_str()},
        {"gamma", "", "float|auto|search", "auto", "(0, inf), auto or search",
         "kernel scale; auto: rbf 1/(2 sigma^2), sigma^2 = mean pairwise squared distance "
         "(Wang, Gittens & Mahoney eq. 5); laplacian 1/(mean pairwise L1 distance); polynomial 1/d; "
         "search (rbf, laplacian): the best of a log grid (0.1x to 10x a k-nearest-neighbour and the "
         "mean-distance scale) by search_criterion on a subsample; kkm_get_param reports the choice",
         0, kInf, true, false, nullptr},
        {"search_criterion", "", "enum", "matr", choices_text<SearchCriterion>().c_str(),
         "how gamma=search scores a gamma: matr (Berlinski & Maitra: trace of a reference kNN-scale kernel "
         "projected on the clusters, largest bandwidth within 1% of the best) or stability (Lange et al. "
         "2004: fit two halves of the subsample, label each half with the other's model, mean adjusted "
         "Rand index); k=auto always scores k by stability (see bench/results/search.md)",
         0, 0, false, false, choices_text<SearchCriterion>().c_str()},
        {"search_size", "", "int", "1000", "[20, 1000000]",
         "rows of the subsample that gamma=search and k=auto fit exact kernel k-means on (all rows when n "
         "is smaller)",
         20, 1e6, false, false, nullptr},
        {"bandwidth_scale", "beta", "float", "0.4", "(0, inf)",
         "beta of gamma=auto: rbf sigma^2 = beta^2 * mean pairwise squared distance, laplacian 1/(beta * mean "
         "pairwise L1 distance); the paper tries 0.2, 1, 5; 0.4 separates rings, circles and the real sets of "
         "bench/ best (README, Defaults)",
         0, kInf, true, false, nullptr},
        {"degree", "", "int", "3", "[1, 20]", "degree of the polynomial kernel", 1, 20, false, false, nullptr},
        {"coef0", "", "float", "1", "(-inf, inf)", "constant term of the polynomial kernel", -kInf, kInf, false, false,
         nullptr},
        {"neighbors", "n_neighbors", "int|auto", "auto", "[1, n-1] or auto",
         "kernel=knn and heat: neighbours q of each row in the graph (symmetrised: (B + B^T)/2); auto: 10, "
         "raised to 15, 20, 30 while a connected component has fewer than n/(2k) rows (too few to be a cluster); "
         "with graph=anchor: the nearest anchors r of each row, auto 3",
         1, kIntMax, false, false, nullptr},
        {"graph", "", "enum", "auto", choices_text<GraphChoice>().c_str(),
         "kernel=knn and heat: how the neighbour graph is built; exact: every distance (O(n^2 d)); "
         "nndescent: NN-descent (Dong, Charikar & Li 2011; recall 0.97 on Fashion-MNIST); anchor: the bipartite "
         "graph of each row to its nearest of p anchors (Chen & Cai 2011; O(n p d), one pass over the rows, a "
         "p x p eigenproblem, a model without the training rows; kernel=knn clusters its normalized cut through "
         "heat_rank pairs); auto: anchor above 20000 rows for kernel=heat and above 60000 for kernel=knn, else "
         "exact when 2 n^2 d <= 5e10, else nndescent",
         0, 0, false, false, choices_text<GraphChoice>().c_str()},
        {"anchors", "", "int|auto", "auto", "[2, n] or auto",
         "graph=anchor: anchors p, the k-means centres of a uniform sample of 10p rows; auto = min(n, max(1000, 10k))",
         2, kIntMax, false, false, nullptr},
        {"heat_t", "", "float", "80", "(0, inf)",
         "kernel=heat: the time t of exp(-t L); larger t weighs the slowest-varying eigenvectors more", 0, kInf, true,
         false, nullptr},
        {"heat_rank", "", "int|auto", "auto", "[1, n] or auto",
         "kernel=heat: eigenpairs r of D^-1/2 A D^-1/2 kept (Lanczos); auto = max(2k, 20) (with kernel=knn on "
         "graph=anchor, whose cut runs through them: max(5k, 50)), one more per connected component",
         1, kIntMax, false, false, nullptr},
        {"heat_normalize", "", "enum", "true", choices_text<Switch>().c_str(),
         "kernel=heat: scale each row's features to length 1 (the normalised kernel K(x,y)/sqrt(K(x,x)K(y,y)), "
         "as Ng, Jordan & Weiss normalise a spectral embedding); false: exp(-t L) itself",
         0, 0, false, false, choices_text<Switch>().c_str()},
        {"m", "landmarks n_components", "int|auto", "auto", "[1, n] or auto",
         "Nystrom landmarks; auto = min(n, max(k, ceil(4 sqrt(n))))", 1, 9.2e18, false, false, nullptr},
        {"nystrom_rcond", "", "float", "1e-06", "[0, 1)",
         "eigenvalues of K_LL below nystrom_rcond * largest are dropped (their directions are "
         "float32 round-off)",
         0, 1, false, true, nullptr},
        {"rank", "s", "int|none", "none", "[1, m] or none",
         "rank restriction s of the Nystrom features (Wang, Gittens & Mahoney 2019, Algorithm 2)", 1, 9.2e18, false,
         false, nullptr},
        {"reg_rank", "l", "int|auto", "auto", "[rank, m] or auto",
         "eigenpairs l of K_LL kept before the rank restriction; auto = ceil(m/2) (at least rank)", 1, 9.2e18, false,
         false, nullptr},
        {"sampling", "", "enum", "uniform", choices_text<Sampling>().c_str(),
         "landmarks: uniform without replacement; rls: ridge leverage scores (Calandriello & "
         "Rosasco 2018, Def. 3); kmeanspp: D^2 sampling in kernel space",
         0, 0, false, false, choices_text<Sampling>().c_str()},
        {"rls_lambda", "", "float|auto", "auto", "(0, inf) or auto",
         "ridge lambda of the leverage scores; auto = sqrt(n)", 0, kInf, true, false, nullptr},
        {"sketch", "", "enum", "subgaussian", choices_text<SketchKind>().c_str(),
         "S of method=sketch (Yin et al. 2022): sparse signs, randomized Hadamard, dense Gaussian, "
         "identity (raw kernel rows)",
         0, 0, false, false, choices_text<SketchKind>().c_str()},
        {"solver", "", "enum", "lloyd", choices_text<Solver>().c_str(),
         "k-means on nystrom/sketch/rff features: full Lloyd passes, or Sculley's mini-batch "
         "k-means (per-centre counts) for n too large for full passes",
         0, 0, false, false, choices_text<Solver>().c_str()},
        {"refine", "", "enum", "none", choices_text<Refine>().c_str(),
         "after Lloyd, Hartigan's single-point transfers: each point moves to the cluster that lowers "
         "the objective most (the exact change of both clusters' terms, weighted) until no move "
         "lowers it (method=exact, nystrom, sketch, rff with solver=lloyd)",
         0, 0, false, false, choices_text<Refine>().c_str()},
        {"batch_size", "b", "int", "1024", "[1, 2147483647]",
         "points per mini-batch, drawn with replacement (method=minibatch, solver=minibatch)", 1, kIntMax, false, false,
         nullptr},
        {"tau", "", "int", "200", "[0, 2147483647]",
         "method=minibatch: each centre keeps its newest batches adding up to >= tau points "
         "(eq. 1); 0 = no truncation (Algorithm 1, O(n(b+k)) per iteration)",
         0, kIntMax, false, false, nullptr},
        {"epsilon", "", "float", "0.001", "[0, inf)",
         "mini-batch early stopping: stop when the batch objective (mean squared distance) "
         "improves by less than epsilon; 0 = never stop early (run max_iter)",
         0, kInf, false, false, nullptr},
        {"learning_rate", "", "enum", "beta", choices_text<LearningRate>().c_str(),
         "method=minibatch: beta alpha_j = sqrt(b_j/b) (Schwartzman 2023); sklearn alpha_j = b_j / "
         "(points assigned to j so far)",
         0, 0, false, false, choices_text<LearningRate>().c_str()},
        {"init", "", "enum", "kmeans++", choices_text<Init>().c_str(),
         "seeding: greedy k-means++ in feature space (2+log k candidates per step) or k distinct "
         "random points",
         0, 0, false, false, choices_text<Init>().c_str()},
        {"n_init", "nstart", "int|auto", "auto", "[1, 1000] or auto",
         "restarts from independent seedings; the lowest objective wins; auto: 10 up to 10000 rows (and "
         "always for kernel=knn and heat, but 3 on the anchor graph), 1 beyond and for method=minibatch with the other "
         "kernels (each of "
         "its restarts repeats the whole fit)",
         1, 1000, false, false, nullptr},
        {"max_iter", "iter.max", "int", "100", "[1, 1000000]", "maximum Lloyd iterations per restart", 1, 1e6, false,
         false, nullptr},
        {"tol", "", "float", "0.0001", "[0, 1)",
         "stop when the objective improves by less than tol * objective (or no label changes)", 0, 1, false, true,
         nullptr},
        {"seed", "random_state", "int", "0", "[0, 9007199254740991]",
         "seed of every random choice (results are identical for any thread count)", 0, 9007199254740991.0, false,
         false, nullptr},
        {"threads", "num_threads n_jobs", "int", "0", "[0, 1024]",
         "threads; 0 = all cores, fewer for a small fit (at least 1.5e6 units of work per thread; see the README); "
         "more than the cores are started once beforehand: OUT_OF_MEMORY naming threads when the system cannot "
         "(ulimit -v, ulimit -u)",
         0, 1024, false, false, nullptr},
        {"isa", "", "enum", "auto", choices_text<IsaChoice>().c_str(),
         "instruction set of the kernel-block engine; auto: the widest this CPU supports (from "
         "its CPUID feature bits); a forced path the CPU lacks is an error. kkm_get_param reports "
         "the path a fit used",
         0, 0, false, false, choices_text<IsaChoice>().c_str()},
        {"kernel_rows", "", "enum", "auto", choices_text<RowsChoice>().c_str(),
         "storage of the n x m kernel rows of method=nystrom: f32, or f16 (IEEE half: half the "
         "memory and bytes streamed per iteration; rbf, laplacian and cosine kernels only, whose "
         "values lie in [-1, 1]); auto: f16 for those kernels, f32 otherwise. kkm_get_param "
         "reports what a fit used",
         0, 0, false, false, choices_text<RowsChoice>().c_str()},
        {"max_memory_mb", "", "int|auto", "auto", "[1, 1073741824] or auto",
         "bound in MiB on what a fit allocates (kernel rows, features, sampling blocks, batches, the float32 "
         "copy of float64 input, per-thread scratch): a fit whose estimate is over is refused before it "
         "reads X; exact stores K when it fits, else recomputes rows in blocks as large as fit; auto: 3/4 of "
         "the smallest of the physical memory, the process's cgroup limit and the room its address-space "
         "limit (ulimit -v) leaves (kkm_get_param reports the MiB)",
         1, 1073741824.0, false, false, nullptr},
    };
}

/// What parse_number made of a text.
enum class Parsed { ok, malformed, overflow, underflow };

/// Parses the whole text as a number, independently of the process locale (from_chars: a
/// host that set LC_NUMERIC to a comma-decimal locale, as a JVM may, still reads "0.5").
/// A well-formed number beyond the type's range is overflow (or, for a double too close to 0
/// to be represented, underflow), not malformed: messages must say which.
Parsed parse_number(std::string_view text, bool integer, double& out) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    if (text.empty()) return Parsed::malformed;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (integer) {
        long long v = 0;
        const auto [end, ec] = std::from_chars(first, last, v, 10);
        if (end != last) return Parsed::malformed;
        if (ec == std::errc::result_out_of_range) return Parsed::overflow;
        if (ec != std::errc()) return Parsed::malformed;
        out = static_cast<double>(v);
        return Parsed::ok;
    }
    double v = 0;
    const auto [end, ec] = std::from_chars(first, last, v, std::chars_format::general);
    if (end != last) return Parsed::malformed;
    if (ec == std::errc::result_out_of_range) {
        // Which side: long double has the wider exponent range; beyond even that, the sign of
        // the exponent tells.
        long double wide = 0;
        const auto [wide_end, wide_ec] = std::from_chars(first, last, wide, std::chars_format::general);
        if (wide_ec == std::errc() && wide_end == last) {
            return std::fabs(wide) < 1 ? Parsed::underflow : Parsed::overflow;
        }
        return text.find("e-") != std::string_view::npos || text.find("E-") != std::string_view::npos
                   ? Parsed::underflow
                   : Parsed::overflow;
    }
    if (ec != std::errc() || !std::isfinite(v)) return Parsed::malformed;
    out = v;
    return Parsed::ok;
}

bool parse_number_ok(std::string_view text, bool integer, double& out) {
    return parse_number(text, integer, out) == Parsed::ok;
}

std::string format_number(double v, bool integer) {
    std::ostringstream os;
    os.imbue(std::locale::classic());
    if (integer) {
        os << static_cast<long long>(v);
        return os.str();
    }
    os.precision(std::numeric_limits<double>::max_digits10 - 2);
    os << v;
    // 15 digits read well ("0.1"), but must give back the same value: 0.9999999999999999 would
    // become "1", which the range [0, 1) refuses on the next set or when a saved model loads.
    double back = 0;
    if (parse_number_ok(os.str(), false, back) && back == v) return os.str();
    os.str("");
    os.precision(std::numeric_limits<double>::max_digits10);
    os << v;
    return os.str();
}

[[noreturn]] void bad_value(const ParamSpec& spec, std::string_view value, const char* why) {
    invalid_argument("parameter '" + std::string(spec.name) + "': value '" + std::string(value) + "' " + why +
                     "; accepted: " + spec.range);
}

bool is_choice(const char* choices, std::string_view value) {
    std::string_view all(choices);
    size_t start = 0;
    while (start <= all.size()) {
        size_t bar = all.find('|', start);
        if (bar == std::string_view::npos) bar = all.size();
        if (all.substr(start, bar - start) == value) return true;
        start = bar + 1;
    }
    return false;
}

}  // namespace

const std::vector<ParamSpec>& param_table() {
    static const std::vector<ParamSpec> table = build_table();
    return table;
}

int find_param(std::string_view key) {
    // Names and aliases (views into the table's literals) to their index, built once and
    // never changed: every kkm_set_param / kkm_get_param looks a key up here (a scan with the
    // aliases re-split per call was a tenth of fuzz_params' time).
    static const std::unordered_map<std::string_view, int> index = [] {
        std::unordered_map<std::string_view, int> out;
        const auto& table = param_table();
        for (size_t i = 0; i < table.size(); ++i) out.emplace(table[i].name, static_cast<int>(i));
        for (size_t i = 0; i < table.size(); ++i) {
            const std::string_view aliases(table[i].aliases);
            for (size_t pos = 0; pos < aliases.size();) {
                const size_t start = aliases.find_first_not_of(" \t", pos);
                if (start == std::string_view::npos) break;
                const size_t end = std::min(aliases.find_first_of(" \t", start), aliases.size());
                out.emplace(aliases.substr(start, end - start), static_cast<int>(i));  // a name wins
                pos = end;
            }
        }
        return out;
    }();
    const auto found = index.find(key);
    return found != index.end() ? found->second : -1;
}

std::string canonical_value(int index, std::string_view value) {
    const ParamSpec& spec = param_table().at(static_cast<size_t>(index));
    const std::string_view type(spec.type);
    if (spec.choices != nullptr) {
        if (!is_choice(spec.choices, value)) bad_value(spec, value, "is not one of the choices");
        return std::string(value);
    }
    if (type.find("|auto") != std::string_view::npos && value == "auto") return "auto";
    if (type.ends_with("|search") && value == "search") return "search";
    if (type.ends_with("|none") && value == "none") return "none";
    const bool integer = type.starts_with("int");
    double v = 0;
    switch (parse_number(value, integer, v)) {
        case Parsed::ok: break;
        case Parsed::malformed: bad_value(spec, value, integer ? "is not an integer" : "is not a finite number");
        case Parsed::overflow:
            bad_value(spec, value,
                      integer ? "is out of range (beyond a 64-bit integer)"
                              : "is not a finite number (it overflows a double, beyond 1.8e308)");
        case Parsed::underflow:
            bad_value(spec, value, "is out of range: it underflows (too close to 0 for a double, below 4.9e-324)");
    }
    const bool below = spec.min_exclusive ? v <= spec.min : v < spec.min;
    const bool above = spec.max_exclusive ? v >= spec.max : v > spec.max;
    if (below || above) {
        bad_value(spec, value, "is out of range");
    }
    return format_number(v, integer);
}

ParamSet::ParamSet() {
    for (const auto& spec : param_table()) values_.emplace_back(spec.default_value);
}

void ParamSet::set(std::string_view key, std::string_view value) {
    const int index = find_param(key);
    if (index < 0) {
        std::string names;
        for (const auto& spec : param_table()) names += std::string(names.empty() ? "" : ", ") + spec.name;
        invalid_argument("unknown parameter '" + std::string(key) + "'; known parameters: " + names);
    }
    values_[static_cast<size_t>(index)] = canonical_value(index, value);
}

std::string ParamSet::text() const {
    std::string out;
    for (size_t i = 0; i < values_.size(); ++i) {
        if (i > 0) out.push_back(' ');
        out.append(param_table()[i].name).append("=").append(values_[i]);
    }
    return out;
}

void ParamSet::set_many(std::string_view text) {
    ParamSet next = *this;
    // The pair that set each parameter in this text: a second one for the same parameter
    // (under its name or an alias) is an error, not a silent "last one wins".
    std::vector<std::string_view> given(values_.size());
    size_t pos = 0;
    auto is_sep = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ','; };
    while (pos < text.size()) {
        while (pos < text.size() && is_sep(text[pos])) ++pos;
        size_t end = pos;
        while (end < text.size() && !is_sep(text[end])) ++end;
        if (end == pos) break;
        const std::string_view pair = text.substr(pos, end - pos);
        const size_t eq = pair.find('=');
        if (eq == std::string_view::npos || eq == 0) {
            invalid_argument("malformed parameter '" + std::string(pair) +
                             "': expected key=value (pairs separated by spaces or commas)");
        }
        const std::string_view key = pair.substr(0, eq);
        next.set(key, pair.substr(eq + 1));
        const auto index = static_cast<size_t>(find_param(key));  // set() refused unknown keys
        if (!given[index].empty()) {
            const ParamSpec& spec = param_table()[index];
            const std::string aliases = *spec.aliases != '\0' ? std::string(" (aliases: ") + spec.aliases + ")" : "";
            invalid_argument("parameter '" + std::string(spec.name) + "'" + aliases + " is given twice: '" +
                             std::string(given[index]) + "' and '" + std::string(pair) + "'; give each parameter once");
        }
        given[index] = pair;
        pos = end;
    }
    *this = std::move(next);
}

const std::string& ParamSet::get(std::string_view key) const {
    const int index = find_param(key);
    if (index < 0) invalid_argument("unknown parameter '" + std::string(key) + "'");
    return values_[static_cast<size_t>(index)];
}

Params ParamSet::typed() const {
    auto value = [this](const char* key, bool integer) {
        double v = 0;
        parse_number(get(key), integer, v);  // canonical text: always parses
        return v;
    };
    auto num = [&](const char* key) { return value(key, false); };
    auto integer = [&](const char* key) { return static_cast<long long>(value(key, true)); };
    auto is_auto = [this](const char* key) { return get(key) == "auto"; };
    auto choice = [this](const char* key, auto& out) { from_text(get(key), out); };  // canonical: a choice
    Params p;
    p.k = is_auto("k") ? 0 : integer("k");
    p.k_min = integer("k_min");
    p.k_max = integer("k_max");
    choice("search_criterion", p.search_criterion);
    p.search_size = integer("search_size");
    p.method_auto = get("method") == "auto";
    if (!p.method_auto) choice("method", p.method);
    choice("solver", p.solver);
    choice("refine", p.refine);
    p.batch_size = integer("batch_size");
    p.tau = integer("tau");
    p.epsilon = num("epsilon");
    choice("learning_rate", p.learning_rate);
    choice("kernel", p.kernel);
    p.gamma_search = get("gamma") == "search";
    p.gamma = is_auto("gamma") || p.gamma_search ? 0.0 : num("gamma");
    p.bandwidth_scale = num("bandwidth_scale");
    p.degree = integer("degree");
    p.coef0 = num("coef0");
    p.m = is_auto("m") ? 0 : integer("m");
    p.nystrom_rcond = num("nystrom_rcond");
    p.rank = get("rank") == "none" ? 0 : integer("rank");
    p.reg_rank = is_auto("reg_rank") ? 0 : integer("reg_rank");
    choice("sampling", p.sampling);
    p.rls_lambda = is_auto("rls_lambda") ? 0.0 : num("rls_lambda");
    choice("sketch", p.sketch);
    choice("init", p.init);
    p.n_init_auto = is_auto("n_init");
    p.n_init = p.n_init_auto ? 1 : integer("n_init");
    p.max_iter = integer("max_iter");
    p.tol = num("tol");
    p.seed = static_cast<uint64_t>(integer("seed"));
    p.threads = integer("threads");
    p.max_memory_mb = is_auto("max_memory_mb") ? auto_memory_mb() : integer("max_memory_mb");
    choice("isa", p.isa);
    choice("kernel_rows", p.kernel_rows);
    p.neighbors = is_auto("neighbors") ? 0 : integer("neighbors");
    choice("graph", p.graph);
    p.anchors = is_auto("anchors") ? 0 : integer("anchors");
    p.heat_t = num("heat_t");
    p.heat_rank = is_auto("heat_rank") ? 0 : integer("heat_rank");
    Switch normalize = Switch::on;
    choice("heat_normalize", normalize);
    p.heat_normalize = normalize == Switch::on;
    return p;
}

}  // namespace kkm
