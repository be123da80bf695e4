// kkmeans params: the parameter table as Markdown (for the README).
#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>

#include "cli.h"
#include "commands.h"
#include "kkmeans.h"
#include "model.h"

namespace kkm_tool {
namespace {

/// A table cell: '|' escaped so it does not split the cell, newlines flattened.
std::string cell(const char* text) {
    std::string out;
    for (const char c : std::string_view(text == nullptr ? "" : text)) {
        if (c == '|') {
            out += "\\|";
        } else if (c == '\n' || c == '\r') {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

/// Same, as inline code (names, types, defaults, ranges).
std::string code_cell(const char* text) {
    const std::string body = cell(text);
    return body.empty() ? body : "`" + body + "`";
}

/// " (also `a`, `b`)" for the space-separated aliases, "" when there are none.
std::string also(const char* aliases) {
    std::string out;
    std::string_view rest(aliases == nullptr ? "" : aliases);
    while (!rest.empty()) {
        const size_t end = std::min(rest.find(' '), rest.size());
        if (end > 0) out += (out.empty() ? " (also " : ", ") + code_cell(std::string(rest.substr(0, end)).c_str());
        rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    return out.empty() ? out : out + ")";
}

}  // namespace

int run_params(std::span<char* const> args) {
    for (const char* arg : args) {
        const std::string_view a(arg);
        if (a == "-h" || a == "--help") {
            print_usage(std::cout);
            return 0;
        }
        throw UsageError("params: unexpected argument '" + std::string(a) + "'");
    }
    std::cout << "| name | type | default | range | description |\n"
              << "|---|---|---|---|---|\n";
    const int32_t count = kkm_param_count();
    for (int32_t i = 0; i < count; ++i) {
        const char* name = nullptr;
        const char* type = nullptr;
        const char* default_value = nullptr;
        const char* range = nullptr;
        const char* doc = nullptr;
        const char* aliases = nullptr;
        check(kkm_param_info(i, &name, &type, &default_value, &range, &doc));
        check(kkm_param_aliases(i, &aliases));
        std::cout << "| " << code_cell(name) << also(aliases) << " | " << cell(type) << " | "
                  << code_cell(default_value) << " | " << code_cell(range) << " | " << cell(doc) << " |\n";
    }
    return 0;
}

}  // namespace kkm_tool
