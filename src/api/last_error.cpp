#include "api/last_error.h"

#include "kkmeans.h"

namespace kkm {
namespace {
thread_local std::string g_last_error;
}

void set_last_error(const std::string& message) noexcept {
    try {
        g_last_error = message;
    } catch (...) {
        g_last_error.clear();  // out of memory while storing the message: keep the status only
    }
}

}  // namespace kkm

extern "C" const char* kkm_last_error(void) {
    return kkm::g_last_error.c_str();
}
