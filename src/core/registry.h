// The lookup of a descriptor table (kernels, methods, landmark samplers): the row for a key.
#pragma once

#include <string>

#include "core/error.h"

namespace kkm {

/// The row of `table` whose member `key` equals `value`; KKM_ERR_INTERNAL naming `what` when
/// the table has none (an enum value without its row).
template <class Table, class Row = typename Table::value_type, class Key>
const Row& registry_row(const Table& table, Key Row::*key, Key value, const char* what) {
    for (const Row& row : table) {
        if (row.*key == value) return row;
    }
    fail(KKM_ERR_INTERNAL, std::string("no descriptor row for this ") + what);
}

}  // namespace kkm
