// fuzz_params: arbitrary bytes as parameter text.
//
//  1. kkm_set_params(bytes, NUL-terminated copy). On failure every parameter is unchanged
//     (all-or-nothing); on success the values read back and set again, on this model and on a
//     fresh one, give the same values (the canonical form is a fixed point).
//  2. kkm_set_param(key, value), the bytes split at the first '=' (or at a position the
//     first byte chooses): on failure nothing changes; on success only one parameter changed
//     and setting its read-back value again changes nothing.
//  3. kkm_get_param of one key (the last byte picks it) with buffer lengths 0, 1, half, exact
//     and size + 1:
//     truncated, NUL-terminated prefixes and INVALID_ARGUMENT until the buffer is large enough.
//  4. kkm_param_info over every index plus out-of-range ones.
// Every status is a documented code with a message on failure (check_status).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.h"

using namespace kkm_fuzz;

namespace {

void check_param_info() {
    const int32_t count = kkm_param_count();
    FUZZ_CHECK(count > 0, "param_count %d", static_cast<int>(count));
    for (int32_t i = -1; i <= count; ++i) {
        const char *name = nullptr, *type = nullptr, *def = nullptr, *range = nullptr, *doc = nullptr;
        const kkm_status s = kkm_param_info(i, &name, &type, &def, &range, &doc);
        check_status(s, "kkm_param_info");
        if (i < 0 || i == count) {
            FUZZ_CHECK(s == KKM_ERR_INVALID_ARGUMENT, "param_info(%d) out of range gave %d", static_cast<int>(i), s);
            continue;
        }
        FUZZ_CHECK(s == KKM_OK && name && type && def && range && doc && name[0], "param_info(%d)",
                   static_cast<int>(i));
    }
}

/// get_param of one key (which: the input picks it; all keys get their turn) with buffer
/// lengths 0, 1, need/2, need and need+1: a truncated, NUL-terminated prefix and
/// INVALID_ARGUMENT while the buffer is too small, the whole value after.
void check_get_param_lengths(const kkm_model* m, const std::vector<std::string>& values, size_t which) {
    static const std::vector<std::string> names = param_names();
    {
        const size_t i = which % names.size();
        const std::string& want = values[i];
        std::vector<char> buf(want.size() + 2, '\x7f');
        for (const size_t len : {size_t{0}, size_t{1}, want.size() / 2, want.size(), want.size() + 1}) {
            size_t out_len = 12345;
            std::fill(buf.begin(), buf.end(), '\x7f');
            const kkm_status s = kkm_get_param(m, names[i].c_str(), buf.data(), len, &out_len);
            check_status(s, "kkm_get_param");
            FUZZ_CHECK(out_len == want.size(), "get_param(%s) out_len %zu, value '%s'", names[i].c_str(), out_len,
                       want.c_str());
            if (len <= want.size()) {
                FUZZ_CHECK(s == KKM_ERR_INVALID_ARGUMENT, "get_param(%s, len=%zu) of '%s' gave %d", names[i].c_str(),
                           len, want.c_str(), s);
            } else {
                FUZZ_CHECK(s == KKM_OK, "get_param(%s, len=%zu): %s", names[i].c_str(), len, kkm_last_error());
            }
            if (len > 0) {
                const size_t n = std::min(len - 1, want.size());
                FUZZ_CHECK(std::memcmp(buf.data(), want.data(), n) == 0 && buf[n] == '\0',
                           "get_param(%s, len=%zu): not a NUL-terminated prefix of '%s'", names[i].c_str(), len,
                           want.c_str());
            }
            FUZZ_CHECK(buf[len] == '\x7f' || len == buf.size(), "get_param(%s) wrote past len=%zu", names[i].c_str(),
                       len);
        }
    }
}

/// Setting the read-back text again must be accepted and change nothing.
void check_fixed_point(kkm_model* m, const std::vector<std::string>& values) {
    const std::string text = params_text(values);
    kkm_status s = kkm_set_params(m, text.c_str());
    check_status(s, "kkm_set_params(read back)");
    FUZZ_CHECK(s == KKM_OK, "read-back parameters '%s' refused: %s", text.c_str(), kkm_last_error());
    FUZZ_CHECK(all_params(m) == values, "read-back parameters '%s' changed on setting again", text.c_str());
    Model fresh;
    s = kkm_set_params(fresh, text.c_str());
    FUZZ_CHECK(s == KKM_OK, "read-back parameters '%s' refused by a fresh model: %s", text.c_str(), kkm_last_error());
    FUZZ_CHECK(all_params(fresh) == values, "read-back parameters '%s' differ on a fresh model", text.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    check_param_info();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);  // c_str(): NUL-terminated copy
    Model m;
    static const std::vector<std::string> defaults = [] {
        Model d;
        return all_params(d);
    }();

    // 1. set_params: all-or-nothing, canonical values a fixed point.
    std::vector<std::string> before = all_params(m);
    FUZZ_CHECK(before == defaults, "a fresh model does not hold the defaults");
    kkm_status s = kkm_set_params(m, text.c_str());
    check_status(s, "kkm_set_params");
    FUZZ_CHECK(s == KKM_OK || s == KKM_ERR_INVALID_ARGUMENT, "set_params gave %s", kkm_status_string(s));
    std::vector<std::string> after = all_params(m);
    if (s != KKM_OK) {
        FUZZ_CHECK(after == before, "a failed set_params changed parameters (%s)", kkm_last_error());
    } else {
        check_fixed_point(m, after);
    }
    check_get_param_lengths(m, after, size > 0 ? data[size - 1] : 0);

    // 2. set_param with a key/value split of the same bytes.
    size_t split = text.find('=');
    if (split == std::string::npos) split = size > 0 ? data[0] % (size + 1) : 0;
    const std::string key = text.substr(0, split).c_str();  // stop at an embedded NUL, as C would
    const std::string value = split < text.size() ? text.substr(split + 1).c_str() : std::string();
    before = all_params(m);
    s = kkm_set_param(m, key.c_str(), value.c_str());
    check_status(s, "kkm_set_param");
    FUZZ_CHECK(s == KKM_OK || s == KKM_ERR_INVALID_ARGUMENT, "set_param gave %s", kkm_status_string(s));
    after = all_params(m);
    if (s != KKM_OK) {
        FUZZ_CHECK(after == before, "a failed set_param('%s', '%s') changed parameters", key.c_str(), value.c_str());
    } else {
        int changed = 0;
        for (size_t i = 0; i < after.size(); ++i) changed += after[i] != before[i];
        FUZZ_CHECK(changed <= 1, "set_param('%s', '%s') changed %d parameters", key.c_str(), value.c_str(), changed);
        // The value read back under the same key (an alias reads the same slot) sets again to itself.
        const std::string read = get_param(m, key.c_str());
        s = kkm_set_param(m, key.c_str(), read.c_str());
        FUZZ_CHECK(s == KKM_OK, "set_param('%s', read-back '%s') refused: %s", key.c_str(), read.c_str(),
                   kkm_last_error());
        FUZZ_CHECK(all_params(m) == after, "set_param('%s', read-back '%s') changed the value", key.c_str(),
                   read.c_str());
        check_fixed_point(m, after);
    }

    // 3. Unknown / malformed keys for get_param fail cleanly.
    char buf[64];
    s = kkm_get_param(m, key.c_str(), buf, sizeof buf, nullptr);
    check_status(s, "kkm_get_param(fuzzed key)");
    return 0;
}
