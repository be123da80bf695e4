// Exceptions used inside the library. They never leave it: src/api/c_api.cpp turns each
// into a kkm_status plus a thread-local message.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

#include "kkmeans.h"

namespace kkm {

/// An error with the status the C API returns for it.
class Error : public std::runtime_error {
public:
    Error(kkm_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
    kkm_status status() const noexcept { return status_; }

private:
    kkm_status status_;
};

/// A number for a message, printf's %.<digits>g: "1e+300", "-0.5", "nan" (std::to_string
/// would print 1e300 with 300 digits and 1e-30 as 0.000000).
inline std::string message_number(double v, int digits = 3) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

/// An error every rank of a distributed fit throws alike (they agreed on it in a collective
/// step): nobody has to be told of it (Comm::abandon).
class CollectiveError : public Error {
public:
    using Error::Error;
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
