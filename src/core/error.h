// Exceptions used inside the library. They never leave it: src/api/c_api.cpp turns each
// into a kkm_status plus a thread-local message.
#pragma once

#include <stdexcept>
#include <string>

#include "kkmeans.h"

namespace kkm {

/// An error with the status the C API returns for it.
class Error : public std::runtime_error {
public:
    Error(kkm_status status, const std::string& message)
        : std::runtime_error(message), status_(status) {}
    kkm_status status() const noexcept { return status_; }

private:
    kkm_status status_;
};

[[noreturn]] inline void fail(kkm_status status, const std::string& message) {
    throw Error(status, message);
}
[[noreturn]] inline void invalid_argument(const std::string& message) {
    throw Error(KKM_ERR_INVALID_ARGUMENT, message);
}
[[noreturn]] inline void invalid_data(const std::string& message) {
    throw Error(KKM_ERR_INVALID_DATA, message);
}

}  // namespace kkm
