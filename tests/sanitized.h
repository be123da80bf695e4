// Whether this test is built with a sanitizer (ASan, TSan, MSan; GCC or clang): the macro
// KKM_TEST_SANITIZED (defined, for code that must not even be compiled there) and kSanitized.
// Sanitizers keep shadow memory and quarantined blocks, so tests that measure resident memory
// or count page faults check only what does not depend on them there.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KKM_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define KKM_TEST_SANITIZED 1
#endif
#endif

namespace kkm_test {

#ifdef KKM_TEST_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace kkm_test
