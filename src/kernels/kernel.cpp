#include "kernels/kernel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "core/enum_text.h"
#include "core/error.h"
#include "core/parallel.h"

namespace kkm {
namespace {

float squared_norm(const float* x, int64_t d) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int64_t t = 0; t < d; ++t) s += x[t] * x[t];
    return s;
}

std::vector<float> squared_norms(ConstMatrix X) {
    std::vector<float> out(static_cast<size_t>(X.rows));
    for (int64_t i = 0; i < X.rows; ++i) out[static_cast<size_t>(i)] = squared_norm(X.row(i), X.cols);
    return out;
}

/// The kernel's row check (kernel_traits.h) on every squared norm; none without dot products.
void check_rows(KernelType type, const std::vector<float>& sq, const KernelScalars& scalars) {
    const auto check = kernel_traits(type).check_row;
    if (check == nullptr) return;
    for (float v : sq) check(type, v, scalars);
}

std::vector<float> inverse_norms(std::vector<float> sq) {
    for (float& v : sq) v = v > 0.0f ? 1.0f / std::sqrt(v) : 0.0f;
    return sq;
}

/// gamma as the float32 the kernels compute with; throws INVALID_ARGUMENT (before any
/// conversion) when a kernel that uses it would see 0 or inf there (0 * inf = NaN).
float float32_gamma(KernelType type, double gamma) {
    if (kernel_traits(type).precomputed) fail(KKM_ERR_INTERNAL, "Kernel built for kernel=precomputed");
    if (!kernel_traits(type).uses_gamma) return 0.0f;
    if (!(gamma >= FLT_MIN && gamma <= FLT_MAX)) {
        invalid_argument("gamma=" + message_number(gamma) + " is outside [" + message_number(FLT_MIN) + ", " +
                         message_number(FLT_MAX) + "], the float32 range kernel=" + to_text(type) + " is computed in");
    }
    return static_cast<float>(gamma);
}

float float32_coef0(KernelType type, double coef0) {
    if (!kernel_traits(type).uses_coef0) return 0.0f;
    if (!(std::fabs(coef0) <= FLT_MAX)) {
        invalid_argument("coef0=" + message_number(coef0) + " is beyond the float32 range (at most " +
                         message_number(FLT_MAX) + " in magnitude) kernel=" + to_text(type) + " is computed in");
    }
    return static_cast<float>(coef0);
}

}  // namespace

engine::Isa requested_isa(IsaChoice choice) {
    switch (choice) {
        case IsaChoice::avx512: return engine::Isa::avx512;
        case IsaChoice::avx2: return engine::Isa::avx2;
        case IsaChoice::portable: return engine::Isa::portable;
        case IsaChoice::automatic: break;
    }
    return engine::best_isa();
}

engine::Isa resolve_isa(IsaChoice choice) {
    const engine::Isa isa = requested_isa(choice);
    if (!engine::isa_supported(isa)) {
        invalid_argument(std::string("isa=") + engine::isa_name(isa) +
                         " is not supported by this CPU (the widest path it runs is isa=" +
                         engine::isa_name(engine::best_isa()) + "); use isa=auto");
    }
    return isa;
}

Kernel::Kernel(KernelType type, double gamma, int64_t degree, double coef0, engine::Isa isa, std::vector<float> shift)
    : type_(type),
      gamma_(float32_gamma(type, gamma)),
      degree_(degree),
      coef0_(float32_coef0(type, coef0)),
      isa_(isa),
      shift_(std::move(shift)) {
    if (!engine::isa_supported(isa))
        fail(KKM_ERR_INTERNAL, std::string("Kernel built for an unsupported isa=") + engine::isa_name(isa));
}

std::vector<float> Kernel::aux(ConstMatrix rows) const {
    if (kernel_traits(type_).check_row == nullptr && kernel_traits(type_).norms == KernelNorms::none) return {};
    std::vector<float> sq = squared_norms(rows);
    check_rows(type_, sq, scalars());
    switch (kernel_traits(type_).norms) {
        case KernelNorms::squared: return sq;
        case KernelNorms::inverse: return inverse_norms(std::move(sq));
        case KernelNorms::none: break;
    }
    return {};
}

ConstMatrix Kernel::centred(ConstMatrix X, Matrix& buf) const {
    if (shift_.empty()) return X;
    buf.reshape(X.rows, X.cols);
    for (int64_t i = 0; i < X.rows; ++i) {
        const float* x = X.row(i);
        float* out = buf.row(i);
#pragma omp simd
        for (int64_t t = 0; t < X.cols; ++t) out[t] = x[t] - shift_[static_cast<size_t>(t)];
    }
    return buf.view();
}

engine::PackedRows Kernel::pack(ConstMatrix Y) const {
    engine::PackedRows packed;
    Matrix buf;
    pack_into(Y, packed, buf);
    return packed;
}

void Kernel::pack_into(ConstMatrix Y, engine::PackedRows& out, Matrix& scratch) const {
    const ConstMatrix rows = centred(Y, scratch);
    out.assign(isa_, rows, aux(rows));
    if (kernel_traits(type_).tile == engine::TileFn::rbf) out.assign_q8(Y);
}

bool Kernel::pack_q8_into(ConstMatrix X, const std::vector<int64_t>& idx, engine::PackedRows& out,
                          const engine::PackedRows::PieceRunner& run) const {
    return kernel_traits(type_).tile == engine::TileFn::rbf && out.assign_q8_only(isa_, X, idx, run);
}

bool Kernel::block_q8(ConstMatrix X, const engine::PackedRows& Y, float* out, int64_t ldo, Scratch* scratch,
                      std::span<const int64_t> idx) const {
    const engine::TileOp op{scalars(), kernel_traits(type_).tile};
    return Y.q8_scale() != 0.0f &&
           engine::kernel_block_q8(X, Y, op, out, ldo, scratch != nullptr ? &scratch->engine : nullptr, idx);
}

bool Kernel::block_q8(const engine::Q8LeftRows& X, const engine::PackedRows& Y, float* out, int64_t ldo) const {
    return engine::kernel_block_q8(X, Y, engine::TileOp{scalars(), kernel_traits(type_).tile}, out, ldo);
}

void Kernel::pack_left(ConstMatrix rows, engine::LeftRows& out, Scratch* scratch) const {
    Matrix local;
    const ConstMatrix X = centred(rows, scratch != nullptr ? scratch->centred : local);
    const std::vector<float> xa = aux(X);
    out.pack(isa_, X, xa.empty() ? nullptr : xa.data());
}

void Kernel::block(const engine::LeftRows& X, const engine::PackedRows& Y, float* out, int64_t ldo) const {
    engine::kernel_block(X, Y, engine::TileOp{scalars(), kernel_traits(type_).tile}, out, ldo);
}

double Kernel::block_footprint(double rows, double d) {
    return Matrix::footprint(rows, d) + 8 * rows + engine::left_pack_footprint(rows, d);
}

void Kernel::block(ConstMatrix rows, const engine::PackedRows& Y, float* out, int64_t ldo, Scratch* scratch) const {
    const engine::TileOp op{scalars(), kernel_traits(type_).tile};
    // 8-bit rows against 8-bit packed rows: exact squared distances of the rows as given (a
    // shift changes none), else the float32 tiles on the centred rows.
    if (block_q8(rows, Y, out, ldo, scratch)) return;
    Matrix local;
    const ConstMatrix X = centred(rows, scratch != nullptr ? scratch->centred : local);
    const std::vector<float> xa = aux(X);
    engine::kernel_block(X, xa.empty() ? nullptr : xa.data(), Y, op, out, ldo,
                         scratch != nullptr ? &scratch->engine : nullptr);
}

void Kernel::diagonal(ConstMatrix rows, float* out) const {
    Matrix buf;
    const ConstMatrix X = centred(rows, buf);
    const KernelTraits& t = kernel_traits(type_);
    if (t.diagonal == nullptr) fail(KKM_ERR_INTERNAL, std::string("Kernel::diagonal of kernel=") + to_text(type_));
    const KernelScalars s = scalars();
    for (int64_t i = 0; i < X.rows; ++i) {
        const float sq = squared_norm(X.row(i), X.cols);
        if (t.check_row != nullptr) t.check_row(type_, sq, s);
        out[i] = t.diagonal(sq, s);
    }
}

namespace {

/// Every row over all ranks equals the first one (global row 0, on the lowest rank with rows).
bool rows_identical(ConstMatrix X, const Comm& comm) {
    const int64_t holder =
        comm.size() - max_over_ranks(comm, X.rows > 0 ? int64_t{comm.size()} - comm.rank() : int64_t{0});
    std::vector<float> first(static_cast<size_t>(X.cols));
    if (comm.rank() == holder) std::copy(X.row(0), X.row(0) + X.cols, first.begin());
    if (holder < comm.size()) broadcast(comm, first.data(), first.size() * sizeof(float), static_cast<int>(holder));
    bool identical = true;
    for (int64_t i = 0; i < X.rows && identical; ++i)
        identical = std::equal(X.row(i), X.row(i) + X.cols, first.begin());
    return every_rank(comm, identical);
}

}  // namespace

std::vector<float> centring_shift(KernelType type, ConstMatrix X, const std::vector<float>& weights, int threads,
                                  const Comm& comm, const RowMoments* moments) {
    if (!kernel_traits(type).centred) return {};
    // Identical rows need no centring, and centred they would all be 0: a linear kernel
    // without a single nonzero value has no landmark span to project onto.
    if (rows_identical(X, comm)) return {};
    const RowMoments own = moments != nullptr ? RowMoments{} : scan_rows(X, weights, Moments::sums, 0, threads);
    const RowMoments& m = moments != nullptr ? *moments : own;
    const int64_t d = X.cols;
    std::vector<double> total(m.sums);  // sums, then the weight: one collective
    total.push_back(m.weight);
    sum_over_ranks(comm, total.data(), total.size());
    std::vector<float> shift(static_cast<size_t>(d));
    for (int64_t t = 0; t < d; ++t)
        shift[static_cast<size_t>(t)] =
            static_cast<float>(total[static_cast<size_t>(t)] / total[static_cast<size_t>(d)]);
    return shift;
}

}  // namespace kkm
