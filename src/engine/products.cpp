#include "engine/products.h"

#include <string>

#include "core/error.h"

namespace kkm::engine {
namespace {

constexpr TileOp kDot{{}, TileFn::dot};

}  // namespace

FixedRight::FixedRight(Isa isa, ConstMatrix B) {
    Matrix columns;
    transpose_into(B, columns);
    packed_.assign(isa, columns.view(), {});
}

void FixedRight::apply(ConstMatrix A, float* out, int64_t ldo, BlockScratch* scratch) const {
    if (A.cols != packed_.dim()) {
        fail(KKM_ERR_INTERNAL, "FixedRight: rows of " + std::to_string(A.cols) + " columns times a matrix of " +
                                   std::to_string(packed_.dim()) + " rows");
    }
    kernel_block(A, nullptr, packed_, kDot, out, ldo, scratch);
}

double FixedRight::footprint(double k, double n) {
    return PackedRows::footprint(n, k) + Matrix::footprint(n, k);
}

double FixedRight::block_footprint(double rows, double k) {
    return LeftRows::footprint(rows, k);  // kernel_block's pass of packed left rows, at most
}

double GramScratch::footprint(double rows, double l) {
    return PackedRows::footprint(l, rows) + LeftRows::footprint(l, rows) + Matrix::footprint(l, l);
}

ConstMatrix gram(Isa isa, ConstMatrix A, GramScratch& scratch) {
    scratch.packed.assign_columns(isa, A);
    scratch.product.reshape(A.cols, A.cols);
    column_gram(A, scratch.packed, scratch.product.data(), A.cols, &scratch.block);
    return scratch.product.view();
}

}  // namespace kkm::engine
