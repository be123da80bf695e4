#include "model/serialize.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "core/archive.h"
#include "core/enum_text.h"
#include "core/error.h"
#include "features/anchor_map.h"
#include "features/rff.h"
#include "io/output_file.h"
#include "kernels/kernel_traits.h"
#include "model/methods.h"
#include "model/serialize_graph.h"
#include "model/serialize_minibatch.h"
#include "model/serialize_projection.h"

namespace kkm {
namespace {

constexpr char kMagic[8] = {'K', 'K', 'M', 'E', 'A', 'N', 'S', '\0'};
constexpr uint32_t kByteOrderMark = 0x01020304u;
constexpr size_t kHeaderBytes = sizeof kMagic + 2 * sizeof(uint32_t);
constexpr size_t kTrailerBytes = sizeof(uint32_t) + sizeof(uint64_t) + sizeof(uint32_t);

enum class BasisKind : uint32_t { points = 1, columns = 2 };

/// What every model holds besides its own arrays: the header section's fields.
struct Shape {
    ModelKind kind;
    int64_t n_train, d, k;
    uint32_t version;  ///< the file's format version
};

[[noreturn]] void bad(const std::string& message) {
    fail(KKM_ERR_FORMAT, "corrupted model: " + message);
}

void require_size(const char* what, size_t have, int64_t want) {
    if (static_cast<int64_t>(have) != want) {
        bad(std::string(what) + " has " + std::to_string(have) + " entries, expected " + std::to_string(want));
    }
}

/// Cluster weights are sums of non-negative sample weights.
void require_non_negative(const char* what, const std::vector<double>& values) {
    for (size_t j = 0; j < values.size(); ++j) {
        if (values[j] < 0) {
            bad(std::string(what) + " of cluster " + std::to_string(j) + " is " + message_number(values[j], 9) +
                ": cluster sizes (sums of sample weights) cannot be negative");
        }
    }
}

// ---------------------------------------------------------------- writing

void save_report(const FitReport& r, Writer& w) {
    w.section(tag("REPT"), [&] {
        w.scalar(r.objective);
        w.scalar<int64_t>(r.iterations);
        w.scalar(r.gamma);
        w.scalar(r.m);
        w.scalar(r.reg_rank);
        w.scalar(r.rls_lambda);
        w.scalar(r.neighbors);
        w.scalar(r.heat_rank);
        w.scalar(static_cast<int64_t>(r.graph));
    });
    w.array<int32_t>(tag("LABL"), r.labels);
    w.array<double>(tag("MASS"), r.mass);
    w.array<float>(tag("SHFT"), r.shift);
    std::string stages;  // names separated by spaces; seconds as doubles
    std::vector<double> seconds;
    for (const auto& [stage, s] : r.timings) {
        stages += (stages.empty() ? "" : " ") + stage;
        seconds.push_back(s);
    }
    w.text(tag("TIMN"), stages);
    w.array<double>(tag("TIMS"), seconds);
    std::vector<double> gammas, scores;
    std::vector<int64_t> ks;
    std::vector<int32_t> criteria;
    for (const SearchPoint& point : r.search) {
        gammas.push_back(point.gamma);
        ks.push_back(point.k);
        scores.push_back(point.score);
        criteria.push_back(static_cast<int32_t>(point.criterion));
    }
    w.array<double>(tag("SRCG"), gammas);
    w.array<int64_t>(tag("SRCK"), ks);
    w.array<double>(tag("SRCS"), scores);
    w.array<int32_t>(tag("SRCC"), criteria);
}

void save_basis(const KernelBasis& basis, Writer& w) {
    w.section(tag("BASE"), [&] {
        if (basis.precomputed()) {
            w.scalar(static_cast<uint32_t>(BasisKind::columns));
            w.array<int64_t>(tag("BCOL"), basis.columns());
        } else {
            w.scalar(static_cast<uint32_t>(BasisKind::points));
            w.matrix(tag("BPTS"), basis.points());
        }
    });
}

void save_map(const FeatureMap& map, Writer& w) {
    w.scalar(static_cast<uint32_t>(map.kind()));
    switch (map.kind()) {
        case MapKind::landmarks: {
            const auto& landmarks = static_cast<const LandmarkMap&>(map);
            save_basis(*landmarks.basis(), w);
            save_projection(landmarks.projection(), w);
            return;
        }
        case MapKind::rff: {
            const auto& rff = static_cast<const RffMap&>(map);
            w.matrix(tag("RFFW"), rff.frequencies());
            w.array<float>(tag("RFFB"), rff.phases());
            return;
        }
        case MapKind::anchors: {
            const auto& anchors = static_cast<const AnchorMap&>(map);
            w.matrix(tag("ANCP"), anchors.anchors().rows().centred());
            w.scalar<int64_t>(anchors.neighbours());
            w.scalar<double>(anchors.sigma2());
            w.matrix(tag("ANCQ"), anchors.projection());
            w.scalar<uint32_t>(anchors.normalise() ? 1 : 0);
            return;
        }
    }
    fail(KKM_ERR_INTERNAL, "save_model: unknown feature map kind");
}

void save_body(const FittedModel& model, Writer& w) {
    switch (model.kind()) {
        case ModelKind::graph: save_graph_body(model, w); return;
        case ModelKind::dual: {
            const auto& dual = static_cast<const DualModel&>(model);
            save_basis(dual.basis(), w);
            w.matrix(tag("DUAZ"), dual.centres().Z);
            w.array<double>(tag("DUAW"), dual.centres().mass);
            w.array<double>(tag("DUAC"), dual.centres().self_dot);
            save_minibatch_state(dual.stream_state(), w);  // format 6: none for exact, tau=0
            return;
        }
        case ModelKind::nystrom: {
            const auto& nystrom = static_cast<const NystromModel&>(model);
            save_map(nystrom.map(), w);
            w.matrix(tag("NYSH"), nystrom.centres().H);
            w.array<float>(tag("NYSC"), nystrom.centres().self_dot);
            w.array<char>(tag("NYSA"), nystrom.centres().alive);
            return;
        }
        case ModelKind::feature: {
            const auto& feature = static_cast<const FeatureModel&>(model);
            save_map(feature.map(), w);
            w.matrix(tag("FEAC"), feature.centroids());
            w.scalar<uint32_t>(feature.kernel_distances() ? 1 : 0);
            w.array<char>(tag("FEAA"), feature.alive());  // format 5: not derived from the report
            return;
        }
    }
    fail(KKM_ERR_INTERNAL, "save_model: unknown model kind");
}

// ---------------------------------------------------------------- reading

/// Whether a loaded map is landmarks with a dense projection (Nyström's P).
bool dense_landmarks(const FeatureMap& map) {
    return map.kind() == MapKind::landmarks &&
           static_cast<const LandmarkMap&>(map).projection().kind() == ProjectionKind::dense;
}

ParamSet load_params(Reader& r) {
    const std::string text = r.text(tag("PARM"));
    ParamSet params;
    try {
        params.set_many(text);
    } catch (const Error& e) {
        bad(std::string("parameter block: ") + e.what());
    }
    return params;
}

Shape load_shape(Reader& outer, const Params& p) {
    Reader r = outer.section(tag("INFO"));
    Shape s{};
    const auto kind = r.scalar<uint32_t>("model kind");
    if (kind < 1 || kind > 4) bad("model kind " + std::to_string(kind) + " is unknown");
    s.kind = static_cast<ModelKind>(kind);
    s.n_train = r.scalar<int64_t>("n_train");
    s.d = r.scalar<int64_t>("d");
    s.k = r.scalar<int64_t>("k");
    r.finish();
    // k=auto (p.k = 0): the fit chose a k in [k_min, k_max].
    const bool k_matches = p.k == 0 ? s.k >= p.k_min && s.k <= p.k_max : s.k == p.k;
    if (s.n_train < 1 || s.d < 1 || s.k < 1 || s.k > s.n_train || !k_matches) {
        bad("sizes n_train=" + std::to_string(s.n_train) + ", d=" + std::to_string(s.d) + ", k=" + std::to_string(s.k) +
            " are inconsistent (parameter k=" +
            (p.k == 0 ? "auto in [" + std::to_string(p.k_min) + ", " + std::to_string(p.k_max) + "]"
                      : std::to_string(p.k)) +
            ")");
    }
    return s;
}

/// What gamma=search / k=auto scored: four arrays of one length (all empty without a search).
std::vector<SearchPoint> load_search(Reader& r) {
    const std::vector<double> gammas = r.array<double>(tag("SRCG"));
    const std::vector<int64_t> ks = r.array<int64_t>(tag("SRCK"));
    const std::vector<double> scores = r.array<double>(tag("SRCS"));
    const std::vector<int32_t> criteria = r.array<int32_t>(tag("SRCC"));
    const auto count = static_cast<int64_t>(gammas.size());
    require_size("search k values", ks.size(), count);
    require_size("search scores", scores.size(), count);
    require_size("search criteria", criteria.size(), count);
    std::vector<SearchPoint> out;
    for (size_t i = 0; i < gammas.size(); ++i) {
        if (!std::isfinite(gammas[i]) || gammas[i] < 0 || !std::isfinite(scores[i]) || ks[i] < 1 || criteria[i] < 0 ||
            criteria[i] > static_cast<int32_t>(SearchCriterion::matr)) {
            bad("search entry " + std::to_string(i) + " is malformed (gamma " + message_number(gammas[i]) + ", k " +
                std::to_string(ks[i]) + ", score " + message_number(scores[i]) + ", criterion " +
                std::to_string(criteria[i]) + ")");
        }
        out.push_back({gammas[i], ks[i], scores[i], static_cast<SearchCriterion>(criteria[i])});
    }
    return out;
}

FitReport load_report(Reader& outer, const Shape& s, uint32_t version) {
    FitReport report;
    Reader r = outer.section(tag("REPT"));
    report.objective = r.scalar<double>("objective");
    report.iterations = static_cast<int32_t>(std::clamp<int64_t>(r.scalar<int64_t>("iterations"), 0, INT32_MAX));
    report.gamma = r.scalar<double>("gamma");
    report.m = r.scalar<int64_t>("m");
    report.reg_rank = r.scalar<int64_t>("reg_rank");
    report.rls_lambda = r.scalar<double>("rls_lambda");
    if (version >= 4) {
        report.neighbors = r.scalar<int64_t>("neighbors");
        report.heat_rank = r.scalar<int64_t>("heat_rank");
        const auto graph = r.scalar<int64_t>("graph search");
        if (graph < 0 || graph > static_cast<int64_t>(GraphChoice::anchor)) {
            bad("the fit report's graph search " + std::to_string(graph) + " is unknown");
        }
        report.graph = static_cast<GraphChoice>(graph);
        if (report.neighbors < 0 || report.neighbors >= s.n_train || report.heat_rank < 0 ||
            report.heat_rank > s.n_train) {
            bad("the fit report's neighbors=" + std::to_string(report.neighbors) +
                " or heat_rank=" + std::to_string(report.heat_rank) + " is outside [0, n_train)");
        }
    }
    r.finish();
    if (!std::isfinite(report.objective) || !std::isfinite(report.gamma) || !std::isfinite(report.rls_lambda)) {
        bad("the fit report holds a non-finite value");
    }
    report.labels = outer.array<int32_t>(tag("LABL"));
    require_size("labels", report.labels.size(), s.n_train);
    for (int32_t label : report.labels) {
        if (label < 0 || label >= s.k) bad("label " + std::to_string(label) + " is outside [0, k)");
    }
    report.mass = outer.array<double>(tag("MASS"));
    require_size("cluster sizes", report.mass.size(), s.k);
    require_non_negative("cluster size", report.mass);
    if (version >= 2) {
        report.shift = outer.array<float>(tag("SHFT"));
        if (!report.shift.empty()) require_size("centring shift", report.shift.size(), s.d);
        for (float v : report.shift) {
            if (!std::isfinite(v)) bad("the centring shift holds a non-finite value");
        }
    }
    const std::string stages = outer.text(tag("TIMN"));
    const std::vector<double> seconds = outer.array<double>(tag("TIMS"));
    // One non-empty name per time: an empty name or a name without a time would not come
    // back the same from the next save.
    std::vector<std::string> names;
    for (size_t pos = 0; !stages.empty() && pos <= stages.size();) {
        const size_t end = std::min(stages.find(' ', pos), stages.size());
        names.push_back(stages.substr(pos, end - pos));
        if (names.back().empty()) bad("stage names '" + stages + "' hold an empty name");
        pos = end + 1;
    }
    require_size("stage times", seconds.size(), static_cast<int64_t>(names.size()));
    for (size_t i = 0; i < names.size(); ++i) report.timings.emplace_back(std::move(names[i]), seconds[i]);
    if (version >= 3) report.search = load_search(outer);
    return report;
}

KernelBasis load_basis(Reader& outer, const Params& p, const FitReport& report, const Shape& s) {
    Reader r = outer.section(tag("BASE"));
    const auto kind = r.scalar<uint32_t>("basis kind");
    const bool precomputed = kernel_traits(p.kernel).precomputed;
    if (kind != static_cast<uint32_t>(precomputed ? BasisKind::columns : BasisKind::points)) {
        bad("basis kind " + std::to_string(kind) + " does not match kernel=" + to_text(p.kernel));
    }
    if (precomputed) {
        std::vector<int64_t> columns = r.array<int64_t>(tag("BCOL"));
        r.finish();
        if (columns.empty() || s.d != s.n_train) bad("precomputed basis is empty or d != n_train");
        for (int64_t c : columns) {
            if (c < 0 || c >= s.n_train) bad("basis column " + std::to_string(c) + " is outside [0, n_train)");
        }
        return KernelBasis(std::move(columns), s.n_train);
    }
    Matrix points = r.matrix(tag("BPTS"));
    r.finish();
    if (points.cols != s.d)
        bad("basis points have " + std::to_string(points.cols) + " columns, d=" + std::to_string(s.d));
    return KernelBasis(Kernel(p.kernel, report.gamma, p.degree, p.coef0, report.isa, report.shift), std::move(points));
}

/// graph=anchor's heat map: the centred anchors (d columns), r in [1, p], σ² finite and
/// positive, Q (p × R) finite, the normalise flag 0 or 1.
std::unique_ptr<FeatureMap> load_anchor_map(Reader& r, const FitReport& report, const Shape& s) {
    Matrix anchors = r.matrix(tag("ANCP"));
    const auto neighbours = r.scalar<int64_t>("anchor neighbours");
    const auto sigma2 = r.scalar<double>("anchor bandwidth");
    Matrix Q = r.matrix(tag("ANCQ"));
    const auto normalise = r.scalar<uint32_t>("heat normalise flag");
    if (anchors.cols != s.d || anchors.rows < 1) {
        bad("anchors are " + std::to_string(anchors.rows) + " x " + std::to_string(anchors.cols) +
            ", d=" + std::to_string(s.d));
    }
    if (neighbours < 1 || neighbours > anchors.rows) {
        bad("anchor neighbours " + std::to_string(neighbours) + " is outside [1, " + std::to_string(anchors.rows) +
            "]");
    }
    if (!(std::isfinite(sigma2) && sigma2 > 0)) bad("anchor bandwidth " + message_number(sigma2) + " is not positive");
    if (Q.rows != anchors.rows || Q.cols < 1) {
        bad("the anchor projection is " + std::to_string(Q.rows) + " x " + std::to_string(Q.cols) + " for " +
            std::to_string(anchors.rows) + " anchors");
    }
    if (normalise > 1) bad("heat normalise flag is " + std::to_string(normalise));
    if (!std::all_of(anchors.values.begin(), anchors.values.end(), [](float v) { return std::isfinite(v); }) ||
        !std::all_of(Q.values.begin(), Q.values.end(), [](float v) { return std::isfinite(v); })) {
        bad("the anchors or their projection hold a value that is not finite");
    }
    if (!report.shift.empty() && static_cast<int64_t>(report.shift.size()) != s.d) {
        bad("the centring shift has " + std::to_string(report.shift.size()) + " values, d=" + std::to_string(s.d));
    }
    graph::SearchRows rows(std::move(anchors), report.shift, report.isa, 1);
    if (const int64_t far = rows.first_too_far(); far >= 0) {
        bad("anchor " + std::to_string(far) + " is too far from the mean for a search in float32");
    }
    graph::PackedSearch search(std::move(rows));
    return std::make_unique<AnchorMap>(std::move(search), neighbours, sigma2, std::move(Q), normalise == 1);
}

/// rff's frequencies were drawn for the report's gamma (N(0, 2 gamma) for rbf, Cauchy of scale
/// gamma for laplacian): with 64 draws or more, a mean square (rbf) or median magnitude
/// (laplacian) off by more than 4x (a chance below 1e-20 for honest draws) is a gamma the
/// model does not compute with. (The centring shift is any finite mean: data at 1e38 give
/// one; a row far from it is refused when assigned, its projection overflowing.)
void check_rff_frequencies(const Matrix& W, const Params& p, const FitReport& report) {
    std::vector<double> magnitude;
    magnitude.reserve(static_cast<size_t>(W.rows * W.cols));
    double squares = 0;
    for (int64_t j = 0; j < W.rows; ++j) {
        for (int64_t t = 0; t < W.cols; ++t) {
            const double w = W.row(j)[t];
            magnitude.push_back(std::abs(w));
            squares += w * w;
        }
    }
    if (magnitude.size() < 64 || !(report.gamma > 0)) return;
    const bool gaussian = kernel_traits(p.kernel).distance == KernelDistance::squared;
    double ratio = 0;
    if (gaussian) {
        ratio = squares / static_cast<double>(magnitude.size()) / (2.0 * report.gamma);
    } else {
        const auto middle = magnitude.begin() + static_cast<std::ptrdiff_t>(magnitude.size() / 2);
        std::nth_element(magnitude.begin(), middle, magnitude.end());
        ratio = *middle / report.gamma;
    }
    if (!(ratio >= 0.25 && ratio <= 4.0)) {
        bad("gamma=" + message_number(report.gamma) + " but the random frequencies were drawn for gamma near " +
            message_number(report.gamma * ratio) + ": the parameters and the map disagree");
    }
}

std::unique_ptr<FeatureMap> load_map(Reader& r, const Params& p, const FitReport& report, const Shape& s) {
    const auto kind = r.scalar<uint32_t>("feature map kind");
    if (kind == static_cast<uint32_t>(MapKind::landmarks)) {
        KernelBasis basis = load_basis(r, p, report, s);
        std::unique_ptr<Projection> projection = load_projection(r, basis.size(), report.isa);
        return std::make_unique<LandmarkMap>(std::move(basis), std::move(projection));
    }
    if (kind == static_cast<uint32_t>(MapKind::anchors)) return load_anchor_map(r, report, s);
    if (kind != static_cast<uint32_t>(MapKind::rff)) bad("feature map kind " + std::to_string(kind) + " is unknown");
    Matrix W = r.matrix(tag("RFFW"));
    std::vector<float> phases = r.array<float>(tag("RFFB"));
    if (W.cols != s.d) bad("random features take " + std::to_string(W.cols) + " columns, d=" + std::to_string(s.d));
    require_size("random feature phases", phases.size(), W.rows);
    check_rff_frequencies(W, p, report);
    return std::make_unique<RffMap>(std::move(W), std::move(phases), report.isa, report.shift);
}

/// Flags of which clusters are alive: each 0 or 1, at least one 1.
void require_alive_flags(const char* what, const std::vector<char>& alive) {
    for (size_t j = 0; j < alive.size(); ++j) {
        if (alive[j] != 0 && alive[j] != 1) {
            bad(std::string(what) + ": flag " + std::to_string(j) + " is " +
                std::to_string(static_cast<int>(alive[j])) + ", not 0 or 1");
        }
    }
    if (std::find(alive.begin(), alive.end(), 1) == alive.end()) bad(std::string(what) + ": no cluster is alive");
}

/// Whether the kernel is positive semi-definite by construction (kernel-space distances are
/// then >= 0): not a precomputed one (whatever the caller gave) nor a polynomial with coef0 < 0.
bool positive_semidefinite(const Params& p) {
    return kernel_traits(p.kernel).positive_semidefinite(p.coef0);
}

/// The most landmarks whose kernel matrix the loader builds to check the centres' norms
/// (m² kernel values: about a second at the limit); larger models are checked for signs only.
constexpr int64_t kCheckedLandmarks = 4096;

/// How far one rbf kernel value may differ between the engine paths of the machine that saved
/// a model and the one loading it: the float32 tiles expand ‖x − y‖² = ‖x‖² + ‖y‖² − 2⟨x, y⟩
/// in centred coordinates, each path rounding its partial sums in its own order (an error of a
/// few ulps of ‖x‖² + ‖y‖² per term), which exp(−γ‖x − y‖²) turns into γ times that: where
/// γ‖x‖² is large (γ = 10 on rows of norm 100), two equal rows get 0.86 on one path and 1 on
/// the other. Generously (d + 4) · 2^-20 · γ · 4 max ‖x − shift‖², at most 1; 0 for the other
/// kernels.
double rbf_path_slack(const Params& p, const FitReport& report, const Matrix& points) {
    if (p.kernel != KernelType::rbf) return 0;
    double top = 0;
    for (int64_t i = 0; i < points.rows; ++i) {
        double sq = 0;
        for (int64_t t = 0; t < points.cols; ++t) {
            const double x = static_cast<double>(points.row(i)[t]) -
                             (report.shift.empty() ? 0.0 : static_cast<double>(report.shift[static_cast<size_t>(t)]));
            sq += x * x;
        }
        top = std::max(top, sq);
    }
    return std::min(1.0, std::ldexp(static_cast<double>(points.cols + 4), -20) * report.gamma * 4 * top);
}

/// Nystrom centres c_j = Σ_l H_jl φ(l) with ‖c_j‖² = H_j K_LL H_jᵀ: the saved norms must be
/// that (to float32 rounding of an eigen-decomposition, and to `slack` per kernel value:
/// rbf_path_slack) and >= 0, or a crafted H (3e38) gives distances far below 0, which were
/// clamped to a perfect match.
void check_nystrom_centres(const LandmarkCentres& c, const KernelBasis& basis, double slack) {
    const int64_t k = c.H.rows, m = c.H.cols;
    for (int64_t j = 0; j < k; ++j) {
        const float norm = c.self_dot[static_cast<size_t>(j)];
        if (c.alive[static_cast<size_t>(j)] && !(norm >= 0.0f)) {
            bad("Nystrom centre " + std::to_string(j) + " has the squared norm " + message_number(norm) +
                ": a squared norm cannot be negative");
        }
    }
    if (basis.precomputed() || m > kCheckedLandmarks) return;
    std::vector<float> K(static_cast<size_t>(m * m)), self(static_cast<size_t>(m));
    basis.evaluate(basis.points().view(), K.data(), m);
    basis.self(basis.points().view(), self.data());
    const double top = std::max(1e-30, static_cast<double>(*std::max_element(self.begin(), self.end())));
    for (int64_t j = 0; j < k; ++j) {
        if (!c.alive[static_cast<size_t>(j)]) continue;
        const float* h = c.H.row(j);
        double q = 0, size = 0, spread = 0;  // spread: Σ|h|, which the paths' kernels move q by slack times squared
        for (int64_t a = 0; a < m; ++a) {
            spread += std::abs(static_cast<double>(h[a]));
            double row = 0, row_size = 0;
            for (int64_t b = 0; b < m; ++b) {
                row += static_cast<double>(K[static_cast<size_t>(a * m + b)]) * h[b];
                row_size += std::abs(static_cast<double>(K[static_cast<size_t>(a * m + b)]) * h[b]);
            }
            q += h[a] * row;
            size += std::abs(static_cast<double>(h[a])) * row_size;
        }
        const double norm = c.self_dot[static_cast<size_t>(j)];
        if (!std::isfinite(q) || std::abs(norm - q) > 1e-2 * (size + top) + slack * spread * spread) {
            bad("Nystrom centre " + std::to_string(j) + " has the squared norm " + message_number(norm) +
                " but its landmark coefficients give " + message_number(q) + ": the centre is inconsistent");
        }
    }
}

/// Dual centres c_j = Σ_i Z_ij φ(b_i) / W_j are convex combinations of the basis points: Z ≥ 0,
/// each column summing to its mass W_j (0 for a cluster that lost every point), and
/// 0 ≤ ‖c_j‖² ≤ max_i k(b_i, b_i). A file that breaks this would give distances that
/// overflow or go below 0 (once clamped to 0 and reported as a perfect match).
void check_dual_centres(const DualCentres& c, const KernelBasis& basis, bool psd) {
    const int64_t n = c.Z.rows, k = c.Z.cols;
    double top = std::numeric_limits<double>::infinity();
    if (psd && !basis.precomputed()) {
        std::vector<float> self(static_cast<size_t>(n));
        basis.self(basis.points().view(), self.data());
        top = 0;
        for (const float v : self) top = std::max(top, static_cast<double>(v));
    }
    bool any_alive = false;
    for (int64_t j = 0; j < k; ++j) {
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) {
            const float z = c.Z.row(i)[j];
            if (z < 0) bad("dual centre " + std::to_string(j) + " has the coefficient " + message_number(z) + " < 0");
            sum += z;
        }
        const double mass = c.mass[static_cast<size_t>(j)];
        if (std::abs(sum - mass) > 1e-3 * std::max(mass, 1e-30) + 1e-30) {
            bad("dual centre " + std::to_string(j) + ": its coefficients sum to " + message_number(sum, 7) +
                " but its mass is " + message_number(mass, 7));
        }
        const double norm = c.self_dot[static_cast<size_t>(j)];
        const double below = -1e-6 * (std::isfinite(top) ? std::max(top, 1.0) : 1.0);  // rounding
        if (psd && mass > 0 && !(norm >= below && norm <= top * (1 + 1e-3) + 1e-6)) {
            bad("dual centre " + std::to_string(j) + " has the squared norm " + message_number(norm) +
                ", outside [0, " + message_number(top) + "] (the largest k(x, x) of its points)");
        }
        any_alive = any_alive || mass > 0;
    }
    if (!any_alive) bad("no dual centre has a positive mass");
}

void require_matrix(const char* what, const Matrix& m, int64_t rows, int64_t cols) {
    if (m.rows != rows || m.cols != cols) {
        bad(std::string(what) + " is " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + ", expected " +
            std::to_string(rows) + " x " + std::to_string(cols));
    }
}

/// The parameter block must describe the body: a file whose PARM says method=exact over an
/// rff body would report parameters the model was not fitted with (and save them again).
/// The body (described as `what`) must be one that a fit of the parameter block's method
/// saves (model/methods.cpp), and `structure` (what the body's own parts must be) must hold.
void require_body_matches(const Params& p, Body body, const char* what, bool structure = true) {
    if (!saves(p.method, body) || !structure) {
        bad(std::string("the parameter block says method=") + to_text(p.method) + " but the body holds " + what +
            ", as " + methods_saving(body) + " fits: the parameters and the fitted model are inconsistent");
    }
}

std::shared_ptr<const FittedModel> load_body(Reader& r, Params p, FitReport report, const Shape& s) {
    if (s.kind == ModelKind::graph) return load_graph_body(r, std::move(p), std::move(report), s.n_train, s.d, s.k);
    if (kernel_traits(p.kernel).graph && s.kind != ModelKind::feature) {
        bad(std::string("the parameter block says kernel=") + to_text(p.kernel) +
            " but the body does not hold a graph model");
    }
    switch (s.kind) {
        case ModelKind::dual: require_body_matches(p, Body::dual, "kernel-space (dual) centres"); break;
        case ModelKind::nystrom: require_body_matches(p, Body::nystrom_centres, "Nystrom centres"); break;
        case ModelKind::feature: break;  // checked below, once the feature map is known
        case ModelKind::graph: break;    // returned above
    }
    if (s.kind == ModelKind::dual) {
        KernelBasis basis = load_basis(r, p, report, s);
        DualCentres c;
        c.Z = r.matrix(tag("DUAZ"));
        c.mass = r.array<double>(tag("DUAW"));
        c.self_dot = r.array<double>(tag("DUAC"));
        require_matrix("dual centre coefficients", c.Z, basis.size(), s.k);
        require_size("dual centre masses", c.mass.size(), s.k);
        require_non_negative("dual centre mass", c.mass);
        require_size("dual centre norms", c.self_dot.size(), s.k);
        check_dual_centres(c, basis, positive_semidefinite(p));
        MinibatchState state =
            s.version >= 6 ? load_minibatch_state(r, s.k, basis.size(), p.method == Method::minibatch && p.tau > 0)
                           : MinibatchState{};
        return std::make_shared<DualModel>(std::move(p), s.n_train, s.d, std::move(report), std::move(basis),
                                           std::move(c), std::move(state));
    }
    std::unique_ptr<FeatureMap> map = load_map(r, p, report, s);
    const bool graph_features = kernel_traits(p.kernel).graph && s.kind == ModelKind::feature;
    if ((map->kind() == MapKind::anchors) != graph_features) {
        bad(std::string("the parameter block says kernel=") + to_text(p.kernel) +
            (map->kind() == MapKind::anchors ? " but the body holds the anchor graph's features"
                                             : " but the body does not hold a graph model"));
    }
    if (s.kind == ModelKind::nystrom) {
        if (!dense_landmarks(*map)) bad("a Nystrom model needs landmarks with a dense projection");
        // How its fit stored the kernel rows (not in the file: the fit's rule on the saved
        // parameters), which kkm_assign rounds its rows to. kernel_rows=f16 with an unbounded
        // kernel cannot come from a fit; the rule gives such a file float32 rows.
        report.kernel_rows = kernel_row_precision(p);
        auto* landmarks = static_cast<LandmarkMap*>(map.get());
        LandmarkCentres c;
        c.H = r.matrix(tag("NYSH"));
        c.self_dot = r.array<float>(tag("NYSC"));
        c.alive = r.array<char>(tag("NYSA"));
        require_matrix("Nystrom centres", c.H, s.k, landmarks->basis()->size());
        require_size("Nystrom centre norms", c.self_dot.size(), s.k);
        require_size("Nystrom live clusters", c.alive.size(), s.k);
        require_alive_flags("Nystrom live clusters", c.alive);
        if (positive_semidefinite(p))
            check_nystrom_centres(c, *landmarks->basis(), rbf_path_slack(p, report, landmarks->basis()->points()));
        map.release();
        return std::make_shared<NystromModel>(std::move(p), s.n_train, s.d, std::move(report),
                                              std::unique_ptr<LandmarkMap>(landmarks), std::move(c));
    }
    Matrix centroids = r.matrix(tag("FEAC"));
    require_matrix("centroids", centroids, s.k, map->dim());
    const auto kernel_distances = r.scalar<uint32_t>("kernel distance flag");
    if (kernel_distances > 1) bad("kernel distance flag is " + std::to_string(kernel_distances));
    // nystrom features carry kernel distances; sketch features do not; rff has its own map;
    // the anchor graph's features (kernel=heat or knn, checked above) measure feature distances.
    if (map->kind() == MapKind::anchors) {
        if (kernel_distances != 0) bad("the anchor graph's features carry no kernel distances");
    } else if (map->kind() == MapKind::rff) {
        require_body_matches(p, Body::random_features, "random Fourier features");
        if (!kernel_traits(p.kernel).shift_invariant) {
            bad(std::string("random Fourier features need kernel=rbf or laplacian, the parameter block says kernel=") +
                to_text(p.kernel));
        }
    } else if (kernel_distances == 1) {
        require_body_matches(p, Body::nystrom_features, "Nystrom features", dense_landmarks(*map));
    } else {
        require_body_matches(p, Body::sketch_features, "sketched landmark features");
    }
    // Format 5 keeps which centroids take points in the body; older files derived it from the
    // report's cluster sizes (informational: they must not decide assignments).
    std::vector<char> alive;
    if (s.version >= 5) {
        alive = r.array<char>(tag("FEAA"));
        require_size("live centroids", alive.size(), s.k);
        require_alive_flags("live centroids", alive);
    }
    return std::make_shared<FeatureModel>(std::move(p), s.n_train, s.d, std::move(report), std::move(map),
                                          std::move(centroids), kernel_distances == 1, std::move(alive));
}

/// A file whose last bytes are not the END. trailer is most often cut short. Walks the top-level
/// sections from the header (each: u32 tag, u64 payload bytes): when one claims more bytes than
/// are left, or the sections end without the trailer, throws FORMAT saying that the file is
/// truncated and how many bytes are missing — exactly when the cut falls in the last section
/// before the trailer (BODY, nearly all of a model), at least that many otherwise. Returns when
/// the sections fill the file (the damage is elsewhere: the caller reports it).
void require_complete(std::span<const unsigned char> bytes) {
    constexpr size_t kSectionHead = sizeof(uint32_t) + sizeof(uint64_t);
    auto truncated = [&](uint64_t missing, bool exact, const std::string& where) {
        bad("the file is truncated: it has " + std::to_string(bytes.size()) + " bytes, and " + where + ": " +
            (exact ? "expected " : "expected at least ") + std::to_string(missing) +
            " more bytes (an interrupted copy or download?)");
    };
    size_t at = kHeaderBytes;
    uint32_t last = 0;
    while (at < bytes.size()) {
        if (bytes.size() - at < kSectionHead) {
            // After BODY only the trailer follows: then exactly its missing bytes.
            const size_t left = bytes.size() - at;
            if (last == tag("BODY")) truncated(kTrailerBytes - left, true, "the END. trailer (checksum) is cut");
            truncated(kSectionHead - left + kTrailerBytes, false,
                      "the section header at byte " + std::to_string(at) + " is cut");
        }
        uint32_t t;
        uint64_t size;
        std::memcpy(&t, bytes.data() + at, sizeof t);
        std::memcpy(&size, bytes.data() + at + sizeof t, sizeof size);
        const size_t payload = at + kSectionHead;
        const uint64_t left = bytes.size() - payload;
        if (size > left) {
            const uint64_t missing = size - left;
            const bool body = t == tag("BODY");  // only the trailer follows it
            const bool end = t == tag("END.");
            truncated(missing + (body ? kTrailerBytes : 0), body || end,
                      "section " + tag_name(t) + " at byte " + std::to_string(at) + " says it holds " +
                          std::to_string(size) + " bytes but " + std::to_string(left) + " are left");
        }
        if (t == tag("END.")) return;                    // a trailer, misplaced or damaged: not a truncation
        if (at + kTrailerBytes == bytes.size()) return;  // where the trailer belongs: a damaged one
        last = t;
        at = payload + static_cast<size_t>(size);
    }
    truncated(kTrailerBytes, last == tag("BODY"),
              "the sections end at byte " + std::to_string(at) + " without the END. trailer (checksum)");
}

/// Checks magic, version (returned in `version`), byte order and checksum; returns the region
/// between header and trailer.
std::span<const unsigned char> check_envelope(std::span<const unsigned char> bytes, uint32_t& version) {
    if (bytes.size() < kHeaderBytes + kTrailerBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
        fail(KKM_ERR_FORMAT, "not a kkmeans model: " + std::to_string(bytes.size()) +
                                 " bytes without the \"KKMEANS\" header (truncated or another file?)");
    }
    Reader header(bytes.subspan(sizeof kMagic, 2 * sizeof(uint32_t)), sizeof kMagic);
    version = header.scalar<uint32_t>("format version");
    const auto order = header.scalar<uint32_t>("byte order");
    if (version > kModelFormatVersion) {
        fail(KKM_ERR_FORMAT, "model format version " + std::to_string(version) + " is newer than this library (" +
                                 kkm_version() + ") reads (up to " + std::to_string(kModelFormatVersion) +
                                 "): upgrade kkmeans to load it");
    }
    if (version == 0) bad("format version 0");
    if (order != kByteOrderMark) bad("the model was written on a machine of the other byte order");
    Reader trailer(bytes.subspan(bytes.size() - kTrailerBytes), bytes.size() - kTrailerBytes);
    if (trailer.peek_tag() != tag("END.")) require_complete(bytes);
    Reader end = trailer.section(tag("END."));
    const auto stored = end.scalar<uint32_t>("checksum");
    const uint32_t actual = crc32(bytes.first(bytes.size() - sizeof(uint32_t)));
    if (stored != actual) {
        bad("checksum mismatch (stored " + std::to_string(stored) + ", computed " + std::to_string(actual) +
            "): the file is damaged or truncated");
    }
    return bytes.subspan(kHeaderBytes, bytes.size() - kHeaderBytes - kTrailerBytes);
}

}  // namespace

std::vector<unsigned char> save_model(const ParamSet& params, const FittedModel& model) {
    Writer w;
    w.raw(kMagic, sizeof kMagic);
    w.scalar(kModelFormatVersion);
    w.scalar(kByteOrderMark);
    w.text(tag("PARM"), params.text());
    w.section(tag("INFO"), [&] {
        w.scalar(static_cast<uint32_t>(model.kind()));
        w.scalar(model.n_train());
        w.scalar(model.input_dim());
        w.scalar<int64_t>(model.params().k);
    });
    save_report(model.report(), w);
    w.section(tag("BODY"), [&] { save_body(model, w); });
    w.scalar(tag("END."));
    w.scalar<uint64_t>(sizeof(uint32_t));
    w.scalar(crc32(w.bytes()));
    return std::move(w.bytes());
}

LoadedModel load_model(std::span<const unsigned char> bytes) {
    try {
        uint32_t version = 0;
        Reader r(check_envelope(bytes, version), kHeaderBytes);
        LoadedModel out{load_params(r), nullptr};
        Params p = out.params.typed();
        const bool restarts_auto = p.n_init_auto;
        apply_kernel_defaults(p, 0);
        Shape shape = load_shape(r, p);
        if (restarts_auto) p.n_init = auto_restarts(p.kernel, p.method, shape.n_train, p.graph);
        shape.version = version;
        p.k = shape.k;  // k=auto: the k the fit chose
        FitReport report = load_report(r, shape, version);
        if (kernel_traits(p.kernel).uses_gamma && !(report.gamma > 0)) {
            bad("the fit report's gamma=" + message_number(report.gamma) +
                " is not positive, as kernel=" + to_text(p.kernel) + " needs");
        }
        // The engine path is the loading machine's: the saved one when this CPU has it, else
        // the widest it has (kernel values agree across paths to float32 rounding).
        const engine::Isa saved = requested_isa(p.isa);
        report.isa = engine::isa_supported(saved) ? saved : engine::best_isa();
        Reader body = r.section(tag("BODY"));
        out.fitted = load_body(body, std::move(p), std::move(report), shape);
        body.finish();
        r.finish();
        return out;
    } catch (const Error& e) {
        // What the model's constructors refuse (a gamma or points beyond float32) is, in a
        // file, a damaged file: FORMAT, as kkm_load_buffer documents.
        if (e.status() != KKM_ERR_INVALID_ARGUMENT && e.status() != KKM_ERR_INVALID_DATA) throw;
        bad(e.what());
    }
}

std::vector<unsigned char> read_file(const std::string& path, uint64_t max_bytes) {
    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!file) fail(KKM_ERR_IO, "cannot open '" + path + "' for reading: " + std::strerror(errno));
    std::vector<unsigned char> bytes;
    unsigned char chunk[1 << 16];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) {
        const size_t at = bytes.size();
        if (at + got > max_bytes) {  // an endless stream (/dev/zero, a pipe) stops here
            fail(KKM_ERR_IO, "'" + path + "' is larger than max_memory_mb allows (" + std::to_string(max_bytes >> 20) +
                                 " MiB): not a model file, or raise max_memory_mb");
        }
        bytes.resize(at + got);
        std::memcpy(bytes.data() + at, chunk, got);
    }
    if (std::ferror(file.get())) fail(KKM_ERR_IO, "cannot read '" + path + "': " + std::strerror(errno));
    return bytes;
}

void write_file(const std::string& path, const std::vector<unsigned char>& bytes) {
    // Written aside and renamed over the path only once complete (a failure leaves an
    // existing file as it was); a device or FIFO is written through, never replaced.
    try {
        io::write_file_safely(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    } catch (const io::FileError& e) {
        fail(KKM_ERR_IO, e.what());
    }
}

}  // namespace kkm
