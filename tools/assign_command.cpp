// kkmeans assign: label new rows with a model saved by 'kkmeans fit -o'.
#include <algorithm>
#include <array>
#include <iostream>
#include <optional>
#include <regex>
#include <string>

#include "cli.h"
#include "commands.h"
#include "data_io.h"
#include "model.h"
#include "report.h"

namespace kkm_tool {
namespace {

constexpr std::array kAssignOptions = {
    OptionSpec{'l', "labels", true}, OptionSpec{'\0', "dims", true}, OptionSpec{'\0', "truth", true},
    OptionSpec{'q', "quiet", false}, OptionSpec{'h', "help", false},
};

struct AssignRequest {
    std::string model_path;
    std::string input;
    std::string labels_path = "-";
    std::optional<std::string> truth_path;
    int64_t dims = 0;
    bool quiet = false;
    /// From max_memory_mb=, the one parameter assign takes: the most bytes of input read into
    /// memory (default: the model's max_memory_mb).
    std::optional<uint64_t> max_input_bytes;
};

/// The input limit of max_memory_mb=VALUE among the parameters, checked as the library checks
/// it; any other parameter is a usage error (the model keeps its own).
std::optional<uint64_t> input_limit(const ParsedArgs& parsed) {
    std::optional<std::string> memory;
    for (const std::string& param : parsed.params) {
        if (!param.starts_with("max_memory_mb=")) {
            throw UsageError("assign: '" + param +
                             "': assign takes no parameters but max_memory_mb= (the model keeps its own)");
        }
        memory = param;
    }
    if (!memory) return std::nullopt;
    Model limits;
    limits.set_params(*memory);  // the library's bounds and message
    return limits.max_input_bytes();
}

AssignRequest make_request(const ParsedArgs& parsed) {
    if (parsed.positionals.size() != 2) throw UsageError("assign: expected MODEL INPUT");
    AssignRequest request;
    request.max_input_bytes = input_limit(parsed);
    request.model_path = parsed.positionals[0];
    request.input = parsed.positionals[1];
    if (const auto labels = parsed.last("labels")) request.labels_path = *labels;
    request.truth_path = parsed.last("truth");
    if (const auto dims = parsed.last("dims")) {
        request.dims = parse_count("--dims", *dims);
        if (request.dims == 0) throw UsageError("option '--dims' must be positive");
    }
    request.quiet = parsed.has("quiet");
    return request;
}

/// Rows assigned per piece: each piece's labels are written as soon as they are known.
constexpr int64_t kPieceRows = int64_t{1} << 20;

/// A piece's error as the input's: the library numbers the piece's rows from 0, so "row N"
/// in its message becomes "row N + first".
[[noreturn]] void rethrow_in_input(const ApiError& e, int64_t first) {
    const std::string what = e.what();
    std::smatch m;
    if (first == 0 || !std::regex_search(what, m, std::regex("row ([0-9]+)"))) throw e;
    throw ApiError(e.status, m.prefix().str() + "row " + std::to_string(std::stoll(m[1].str()) + first) +
                                 m.suffix().str());
}

/// Assigns the rows piece by piece, appending each piece's labels to the labels output: a
/// file grows in its staged copy while the model works and replaces the target only once
/// complete (standard output gets them all at the end, as before). Returns every label when
/// `keep` (for --truth), else none: a file's labels are never all held at once.
std::vector<int32_t> assign_in_pieces(const Model& model, const Rows& rows, const std::string& path, bool keep) {
    StagedOutput out(path);
    std::vector<int32_t> kept;
    int64_t begin = 0;
    do {
        const int64_t count = std::min(kPieceRows, rows.rows - begin);
        std::vector<int32_t> piece;
        try {
            piece = model.assign(Rows{rows.data + begin * rows.cols, count, rows.cols});
        } catch (const ApiError& e) {
            rethrow_in_input(e, begin);
        }
        out.write(labels_text(path, piece, begin == 0));
        if (keep) kept.insert(kept.end(), piece.begin(), piece.end());
        begin += count;
    } while (begin < rows.rows);
    out.commit();
    return kept;
}

int assign(const AssignRequest& request) {
    Progress progress(!request.quiet);
    std::vector<CommandFile> files{{"the model", request.model_path, false}, {"the input", request.input, false}};
    if (request.truth_path) files.push_back({"--truth", *request.truth_path, false});
    files.push_back({"-l (the labels)", request.labels_path, true});
    check_files(files);
    Model model;
    progress.begin("loading " + request.model_path);
    model.load(request.model_path);
    progress.end("loading", "method=" + model.param("method") + ", k=" + model.param("k") +
                                ", d=" + std::to_string(model.n_features()));
    progress.begin("reading " + request.input);
    std::string format;
    const uint64_t max_bytes = request.max_input_bytes.value_or(model.max_input_bytes());
    const InputMatrix data = open_matrix(request.input, request.dims, format, max_bytes);
    progress.end("reading", std::to_string(data.rows) + " x " + std::to_string(data.cols) + " (" + format + ")");
    // Every input is read before the labels file is replaced: a bad --truth file must not
    // leave new labels behind an error (and the labels file itself is replaced only whole).
    std::optional<std::vector<int32_t>> truth;
    if (request.truth_path) truth = read_truth(*request.truth_path, data.rows, max_bytes);
    progress.begin("assigning");
    const std::vector<int32_t> labels = assign_in_pieces(model, data.view(), request.labels_path, truth.has_value());
    progress.end("assigning");
    if (truth) {
        print_field(std::cerr, "ARI", fixed(adjusted_rand_index(labels, *truth), 4));
        print_field(std::cerr, "NMI", fixed(normalized_mutual_info(labels, *truth), 4));
    }
    return 0;
}

}  // namespace

int run_assign(std::span<char* const> args) {
    const ParsedArgs parsed = parse_args(args, kAssignOptions);
    if (parsed.has("help")) {
        print_usage(std::cout);
        return 0;
    }
    return assign(make_request(parsed));
}

}  // namespace kkm_tool
