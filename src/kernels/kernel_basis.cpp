#include "kernels/kernel_basis.h"

#include "core/error.h"

namespace kkm {

double KernelBasis::footprint(double rows, double d, bool precomputed) {
    return precomputed ? 8 * rows : Matrix::footprint(rows, d) + engine::PackedRows::footprint(rows, d);
}

double KernelBasis::build_footprint(double rows, double d, bool precomputed) {
    return precomputed ? 0 : Matrix::footprint(rows, d) + 8 * rows;
}

double KernelBasis::row_block_footprint(double rows, double d, double cols, bool precomputed) {
    return Matrix::footprint(rows, d) + (precomputed ? 0 : Kernel::block_footprint(rows, d)) +
           (cols > 0 ? Matrix::footprint(rows, cols) : 0);
}

KernelBasis::KernelBasis(const Kernel& kernel, Matrix points) : kernel_(kernel), points_(std::move(points)) {
    packed_ = kernel_->pack(points_.view());
    size_ = points_.rows;
    input_dim_ = points_.cols;
}

KernelBasis::KernelBasis(std::vector<int64_t> columns, int64_t n_train) : columns_(std::move(columns)) {
    size_ = static_cast<int64_t>(columns_.size());
    input_dim_ = n_train;
}

void KernelBasis::evaluate(ConstMatrix rows, float* out, int64_t ldo, Kernel::Scratch* scratch) const {
    if (kernel_) {
        kernel_->block(rows, packed_, out, ldo, scratch);
        return;
    }
    for (int64_t i = 0; i < rows.rows; ++i) {
        const float* r = rows.row(i);
        float* o = out + i * ldo;
        for (int64_t j = 0; j < size_; ++j) o[j] = r[columns_[static_cast<size_t>(j)]];
    }
}

void KernelBasis::self(ConstMatrix rows, float* out) const {
    if (!kernel_) {
        invalid_argument(
            "k(x, x) of new rows is unknown with kernel=precomputed (only kernel "
            "values against the training points are given); pass distances=NULL");
    }
    kernel_->diagonal(rows, out);
}

KernelBasis training_basis_over(const std::optional<Kernel>& kernel, ConstMatrix X, const Comm& comm,
                                const RowPartition& part, const std::vector<int64_t>& idx) {
    if (!kernel) return KernelBasis(idx, X.rows);
    return KernelBasis(*kernel, rows_by_index(comm, part, X, idx));
}

}  // namespace kkm
