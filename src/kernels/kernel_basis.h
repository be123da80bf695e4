// K(·, r_j) against a fixed reference set r_1..r_m: the landmarks of Nyström, or every
// training point of exact kernel k-means. With kernel=precomputed the inputs are kernel
// rows against the training points and the reference set is a set of column indices.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/comm.h"
#include "core/matrix.h"
#include "kernels/kernel.h"

namespace kkm {

class KernelBasis {
public:
    /// Reference points (copied). Inputs must have points.cols columns.
    KernelBasis(const Kernel& kernel, Matrix points);
    /// Precomputed kernel: reference j is training column columns[j]; inputs must have
    /// n_train columns.
    KernelBasis(std::vector<int64_t> columns, int64_t n_train);

    /// Bytes a basis over `rows` reference points of d values keeps: the copy and its packed
    /// panels (a precomputed kernel's column indices).
    static double footprint(double rows, double d, bool precomputed);
    /// Bytes building it holds besides: the centred copy and the norms while it packs.
    static double build_footprint(double rows, double d, bool precomputed);
    /// Bytes one thread's kernel rows of a block of `rows` input rows take: the padded copy
    /// of the caller's rows, Kernel::block's scratch (none for a precomputed kernel, whose
    /// columns are read) and `cols` output floats per row (0: written in place).
    static double row_block_footprint(double rows, double d, double cols, bool precomputed);

    int64_t size() const { return size_; }
    /// Number of columns an input row must have.
    int64_t input_dim() const { return input_dim_; }
    bool precomputed() const { return !kernel_.has_value(); }
    /// The engine path of the kernel's blocks (a precomputed kernel's: the widest).
    engine::Isa isa() const { return kernel_ ? kernel_->isa() : engine::best_isa(); }

    /// out (rows.rows × size(), row stride ldo) = K(rows_i, r_j). Single-threaded.
    /// scratch: NULL, or the calling thread's Kernel::Scratch, kept from one block to the next
    /// so that a pass over many blocks allocates (and zeroes) its centred copy and packed rows
    /// once, not at every block.
    void evaluate(ConstMatrix rows, float* out, int64_t ldo, Kernel::Scratch* scratch = nullptr) const;

    /// k(x, x) of each input row; throws for a precomputed kernel (it is not known).
    void self(ConstMatrix rows, float* out) const;

    const Matrix& points() const { return points_; }
    const std::vector<int64_t>& columns() const { return columns_; }

private:
    std::optional<Kernel> kernel_;
    Matrix points_;
    engine::PackedRows packed_;
    std::vector<int64_t> columns_;
    int64_t size_ = 0;
    int64_t input_dim_ = 0;
};

/// The kernel over training points idx (global indices, the same list on every rank): `kernel`
/// over those rows of X, gathered from the ranks holding them (collective), or, with no kernel
/// (kernel=precomputed, X is K), columns idx of K.
KernelBasis training_basis_over(const std::optional<Kernel>& kernel, ConstMatrix X, const Comm& comm,
                                const RowPartition& part, const std::vector<int64_t>& idx);

}  // namespace kkm
