// The thread-local message behind kkm_last_error().
#pragma once

#include <string>

namespace kkm {

void set_last_error(const std::string& message) noexcept;

}  // namespace kkm
