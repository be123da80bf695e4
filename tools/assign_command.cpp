// kkmeans assign: label new rows with a model saved by 'kkmeans fit -o'.
#include <array>
#include <iostream>
#include <optional>
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
};

AssignRequest make_request(const ParsedArgs& parsed) {
    if (parsed.positionals.size() != 2 || !parsed.params.empty()) {
        throw UsageError("assign: expected MODEL INPUT (and no key=value parameters: the model keeps its own)");
    }
    AssignRequest request;
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
    const InputMatrix data = open_matrix(request.input, request.dims, format, model.max_input_bytes());
    progress.end("reading", std::to_string(data.rows) + " x " + std::to_string(data.cols) + " (" + format + ")");
    // Every input is read before the labels file is replaced: a bad --truth file must not
    // leave new labels behind an error (and the labels file itself is replaced only whole).
    std::optional<std::vector<int32_t>> truth;
    if (request.truth_path) truth = read_truth(*request.truth_path, data.rows, model.max_input_bytes());
    progress.begin("assigning");
    const std::vector<int32_t> labels = model.assign(data.view());
    progress.end("assigning");
    write_labels(request.labels_path, labels);
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
