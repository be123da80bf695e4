// Placeholder until the algorithm lands (helper work in progress).
#include "cluster/minibatch_kernel.h"

#include "core/error.h"

namespace kkm {

MinibatchResult minibatch_kernel_kmeans(const PointKernel&, const std::vector<float>&,
                                        const MinibatchOptions&, uint64_t) {
    fail(KKM_ERR_INTERNAL, "method=minibatch is not implemented yet");
}

}  // namespace kkm
