// Command-line plumbing shared by the sub-commands: the two error kinds (a failure → exit 1,
// a usage mistake → usage text and exit 2) and a small option parser.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kkm_tool {

/// A mistake on the command line: main prints the message and the usage, exits 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Any other failure (I/O, bad data, a library error): main prints it, exits 1.
struct ToolError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// One option a sub-command accepts: "-o" / "--labels", with or without a value.
struct OptionSpec {
    char short_name;  ///< '\0' if the option has no short form
    std::string_view long_name;
    bool takes_value;
};

/// What the parser found. Options are keyed by their long name; flags hold "".
struct ParsedArgs {
    std::map<std::string, std::vector<std::string>, std::less<>> options;
    std::vector<std::string> positionals;
    std::vector<std::string> params;  ///< trailing key=value arguments, in order

    bool has(std::string_view name) const;
    /// The last value given for an option, if any.
    std::optional<std::string> last(std::string_view name) const;
    /// All parameter text: every value of -p/--params, then the key=value arguments.
    std::string joined_params() const;
};

/// Parses args (without the program and sub-command names). Accepts "--name value",
/// "--name=value", "-x value", "-xvalue"; "--" ends the options; a bare "key=value" is a
/// parameter. Throws UsageError for an unknown option or a missing value.
ParsedArgs parse_args(std::span<char* const> args, std::span<const OptionSpec> specs);

/// Parses a whole non-negative integer option value; throws UsageError naming the option.
long long parse_count(std::string_view option, std::string_view text);

/// At start: a standard descriptor (0, 1, 2) the program was started without is opened on
/// /dev/null the wrong way round (0 write-only, 1 and 2 read-only), so that no file the
/// command opens takes its number (a model file as descriptor 1 would receive the summary)
/// and what is printed there fails instead of vanishing.
void reserve_standard_descriptors();

/// At the end of a command that returned `status`: standard output flushed; 1 (after saying
/// so on standard error, prefixed by `program`) where it could not take what was printed (a
/// full disk, a closed descriptor), else `status`.
int finish_standard_output(int status, std::string_view program);

}  // namespace kkm_tool
