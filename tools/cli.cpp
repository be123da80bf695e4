#include "cli.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <iostream>

namespace kkm_tool {
namespace {

/// "key=value" where key looks like a parameter name (letters, digits, '_' and '.').
bool is_param_arg(std::string_view arg) {
    const size_t eq = arg.find('=');
    if (eq == 0 || eq == std::string_view::npos) return false;
    if (std::isalpha(static_cast<unsigned char>(arg[0])) == 0) return false;
    return std::all_of(arg.begin(), arg.begin() + static_cast<std::ptrdiff_t>(eq),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.'; });
}

const OptionSpec* find_long(std::span<const OptionSpec> specs, std::string_view name) {
    for (const auto& spec : specs) {
        if (spec.long_name == name) return &spec;
    }
    return nullptr;
}

const OptionSpec* find_short(std::span<const OptionSpec> specs, char name) {
    for (const auto& spec : specs) {
        if (spec.short_name != '\0' && spec.short_name == name) return &spec;
    }
    return nullptr;
}

/// Cursor over the argument list, so an option can take the next argument as its value.
class ArgCursor {
public:
    explicit ArgCursor(std::span<char* const> args) : args_(args) {}
    bool done() const { return pos_ >= args_.size(); }
    std::string_view next() { return args_[pos_++]; }
    std::string value_for(std::string_view option) {
        if (done()) throw UsageError("option '" + std::string(option) + "' needs a value");
        return std::string(next());
    }

private:
    std::span<char* const> args_;
    size_t pos_ = 0;
};

void parse_long(std::string_view arg, ArgCursor& cursor, std::span<const OptionSpec> specs, ParsedArgs& out) {
    const std::string_view body = arg.substr(2);
    const size_t eq = body.find('=');
    const std::string_view name = body.substr(0, eq);
    const OptionSpec* spec = find_long(specs, name);
    if (spec == nullptr) throw UsageError("unknown option '--" + std::string(name) + "'");
    std::string value;
    if (spec->takes_value) {
        value = eq == std::string_view::npos ? cursor.value_for(arg) : std::string(body.substr(eq + 1));
    } else if (eq != std::string_view::npos) {
        throw UsageError("option '--" + std::string(name) + "' takes no value");
    }
    out.options[std::string(spec->long_name)].push_back(std::move(value));
}

void parse_short(std::string_view arg, ArgCursor& cursor, std::span<const OptionSpec> specs, ParsedArgs& out) {
    const OptionSpec* spec = find_short(specs, arg[1]);
    if (spec == nullptr) throw UsageError("unknown option '" + std::string(arg.substr(0, 2)) + "'");
    std::string value;
    if (spec->takes_value) {
        value = arg.size() > 2 ? std::string(arg.substr(2)) : cursor.value_for(arg);
    } else if (arg.size() > 2) {
        throw UsageError("option '" + std::string(arg.substr(0, 2)) + "' takes no value");
    }
    out.options[std::string(spec->long_name)].push_back(std::move(value));
}

}  // namespace

bool ParsedArgs::has(std::string_view name) const {
    return options.find(name) != options.end();
}

std::optional<std::string> ParsedArgs::last(std::string_view name) const {
    const auto it = options.find(name);
    if (it == options.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::string ParsedArgs::joined_params() const {
    std::string text;
    auto append = [&text](const std::string& part) {
        if (!text.empty()) text += ' ';
        text += part;
    };
    if (const auto it = options.find("params"); it != options.end()) {
        for (const auto& value : it->second) append(value);
    }
    for (const auto& param : params) append(param);
    return text;
}

ParsedArgs parse_args(std::span<char* const> args, std::span<const OptionSpec> specs) {
    ParsedArgs out;
    ArgCursor cursor(args);
    bool options_done = false;
    while (!cursor.done()) {
        const std::string_view arg = cursor.next();
        if (options_done || arg == "-" || arg.size() < 2 || arg[0] != '-') {
            if (!options_done && is_param_arg(arg)) {
                out.params.emplace_back(arg);
            } else {
                out.positionals.emplace_back(arg);
            }
        } else if (arg == "--") {
            options_done = true;
        } else if (arg[1] == '-') {
            parse_long(arg, cursor, specs, out);
        } else {
            parse_short(arg, cursor, specs, out);
        }
    }
    return out;
}

long long parse_count(std::string_view option, std::string_view text) {
    long long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
        throw UsageError("option '" + std::string(option) + "': '" + std::string(text) +
                         "' is not a non-negative integer");
    }
    return value;
}

void reserve_standard_descriptors() {
    for (const int fd : {0, 1, 2}) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        const int opened = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (opened >= 0 && opened != fd) ::close(opened);  // a lower one was free: taken in its turn
    }
}

int finish_standard_output(int status, std::string_view program) {
    errno = 0;
    std::cout.flush();
    if (std::cout) return status;
    const int error = errno;
    std::cerr << program << ": error: cannot write to standard output"
              << (error != 0 ? std::string(": ") + std::strerror(error) : std::string()) << '\n';
    return 1;
}

}  // namespace kkm_tool
