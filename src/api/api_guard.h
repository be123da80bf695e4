// The one pattern of the ABI boundary: an entry point's body runs between KKM_API_BEGIN and
// KKM_API_END, which turn every exception into a kkm_status plus the calling thread's
// kkm_last_error() message (LightGBM's API_BEGIN/API_END). No exception crosses a function
// written this way. Private to src/api.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "api/last_error.h"
#include "core/error.h"
#include "kkmeans.h"

namespace kkm {

/// Stores message for kkm_last_error() and returns status.
inline kkm_status report(kkm_status status, const std::string& message) noexcept {
    set_last_error(message);
    return status;
}

}  // namespace kkm

#define KKM_API_BEGIN try {
#define KKM_API_END                                                                          \
    }                                                                                        \
    catch (const ::kkm::Error& e) {                                                          \
        return ::kkm::report(e.status(), e.what());                                          \
    }                                                                                        \
    catch (const std::bad_alloc&) {                                                          \
        return ::kkm::report(KKM_ERR_OUT_OF_MEMORY, "out of memory (an allocation failed)"); \
    }                                                                                        \
    catch (const std::exception& e) {                                                        \
        return ::kkm::report(KKM_ERR_INTERNAL, std::string("internal error: ") + e.what());  \
    }                                                                                        \
    catch (...) {                                                                            \
        return ::kkm::report(KKM_ERR_INTERNAL, "internal error: unknown exception");         \
    }                                                                                        \
    return KKM_OK;
