#include "model/serialize_projection.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "features/sketch.h"

namespace kkm {
namespace {

[[noreturn]] void bad_projection(const std::string& message) {
    fail(KKM_ERR_FORMAT, "corrupted model: projection " + message);
}

void check_subgaussian(int64_t m, const std::vector<int64_t>& row_start, const std::vector<int64_t>& columns,
                       const std::vector<float>& row_value) {
    if (static_cast<int64_t>(row_start.size()) != m + 1 || static_cast<int64_t>(row_value.size()) != m) {
        bad_projection("(subgaussian) has " + std::to_string(row_start.size()) + " row starts and " +
                       std::to_string(row_value.size()) + " row values for m=" + std::to_string(m));
    }
    if (row_start.front() != 0 || row_start.back() != static_cast<int64_t>(columns.size()) ||
        !std::is_sorted(row_start.begin(), row_start.end())) {
        bad_projection("(subgaussian) row starts are not ascending from 0 to the column count");
    }
    for (int64_t j : columns) {
        if (j < 0 || j >= m) bad_projection("(subgaussian) column " + std::to_string(j) + " is outside [0, m)");
    }
}

}  // namespace

void save_projection(const Projection& projection, Writer& w) {
    w.section(tag("PROJ"), [&] {
        w.scalar<int64_t>(projection.in_dim());
        w.scalar(static_cast<uint32_t>(projection.kind()));
        switch (projection.kind()) {
            case ProjectionKind::dense:
                w.matrix(tag("PDNS"), static_cast<const DenseProjection&>(projection).matrix());
                return;
            case ProjectionKind::identity: return;
            case ProjectionKind::ros:
                w.array<float>(tag("PSGN"), static_cast<const RosProjection&>(projection).scaled_signs());
                return;
            case ProjectionKind::subgaussian: {
                const auto& sub = static_cast<const SubgaussianProjection&>(projection);
                w.array<int64_t>(tag("PROW"), sub.row_start());
                w.array<int64_t>(tag("PCOL"), sub.columns());
                w.array<float>(tag("PVAL"), sub.row_value());
                return;
            }
        }
        fail(KKM_ERR_INTERNAL, "save_projection: unknown projection kind");
    });
}

std::unique_ptr<Projection> load_projection(Reader& outer, int64_t in_dim, engine::Isa isa) {
    Reader r = outer.section(tag("PROJ"));
    const auto m = r.scalar<int64_t>("landmark count");
    if (m != in_dim) {
        bad_projection("maps " + std::to_string(m) + " kernel values but the basis has " + std::to_string(in_dim));
    }
    std::unique_ptr<Projection> out;
    switch (static_cast<ProjectionKind>(r.scalar<uint32_t>("projection kind"))) {
        case ProjectionKind::dense: {
            Matrix P = r.matrix(tag("PDNS"));
            if (P.rows != m)
                bad_projection("(dense) has " + std::to_string(P.rows) + " rows for m=" + std::to_string(m));
            out = std::make_unique<DenseProjection>(std::move(P), isa);
            break;
        }
        case ProjectionKind::identity: out = std::make_unique<IdentityProjection>(m); break;
        case ProjectionKind::ros: {
            std::vector<float> signs = r.array<float>(tag("PSGN"));
            if (static_cast<int64_t>(signs.size()) != RosProjection::padded_dim(m)) {
                bad_projection("(ros) has " + std::to_string(signs.size()) + " signs for m=" + std::to_string(m));
            }
            // Each entry is a sign times 1/√p, as the fit wrote it (float rounding aside).
            const float scale = 1.0f / std::sqrt(static_cast<float>(signs.size()));
            for (size_t i = 0; i < signs.size(); ++i) {
                if (!(std::abs(std::abs(signs[i]) - scale) <= 1e-6f * scale)) {
                    bad_projection("(ros) sign " + std::to_string(i) + " is " + message_number(signs[i]) +
                                   ", not +-1/sqrt(" + std::to_string(signs.size()) + ")");
                }
            }
            out = std::make_unique<RosProjection>(m, std::move(signs));
            break;
        }
        case ProjectionKind::subgaussian: {
            std::vector<int64_t> row_start = r.array<int64_t>(tag("PROW"));
            std::vector<int64_t> columns = r.array<int64_t>(tag("PCOL"));
            std::vector<float> row_value = r.array<float>(tag("PVAL"));
            check_subgaussian(m, row_start, columns, row_value);
            out = std::make_unique<SubgaussianProjection>(m, std::move(row_start), std::move(columns),
                                                          std::move(row_value));
            break;
        }
        default: bad_projection("kind is unknown");
    }
    r.finish();
    return out;
}

}  // namespace kkm
