// kkmeans fit: cluster a CSV or raw float32 file and print a summary.
#include <algorithm>
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

constexpr std::array kFitOptions = {
    OptionSpec{'p', "params", true}, OptionSpec{'l', "labels", true}, OptionSpec{'o', "output", true},
    OptionSpec{'\0', "truth", true}, OptionSpec{'\0', "dims", true},  OptionSpec{'q', "quiet", false},
    OptionSpec{'h', "help", false},
};

struct FitRequest {
    std::string input;
    std::string params;
    std::optional<std::string> labels_path;
    std::optional<std::string> model_path;
    std::optional<std::string> truth_path;
    int64_t dims = 0;  ///< > 0: raw float32 input
    bool quiet = false;
};

FitRequest make_request(const ParsedArgs& parsed) {
    if (parsed.positionals.empty()) throw UsageError("fit: missing INPUT");
    if (parsed.positionals.size() > 1) {
        throw UsageError("fit: one INPUT expected, got '" + parsed.positionals[0] + "' and '" + parsed.positionals[1] +
                         "'");
    }
    FitRequest request;
    request.input = parsed.positionals[0];
    request.params = parsed.joined_params();
    request.labels_path = parsed.last("labels");
    request.model_path = parsed.last("output");
    request.truth_path = parsed.last("truth");
    if (const auto dims = parsed.last("dims")) {
        request.dims = parse_count("--dims", *dims);
        if (request.dims == 0) throw UsageError("option '--dims' must be positive");
    }
    request.quiet = parsed.has("quiet");
    return request;
}

/// The input as read, with what the summary says about it.
struct LoadedInput {
    InputMatrix data;
    std::string format;
    std::optional<std::vector<int32_t>> truth;
    double seconds = 0;
};

std::vector<CommandFile> command_files(const FitRequest& request) {
    std::vector<CommandFile> files{{"the input", request.input, false}};
    if (request.truth_path) files.push_back({"--truth", *request.truth_path, false});
    if (request.model_path) files.push_back({"-o (the model)", *request.model_path, true, true});
    if (request.labels_path) files.push_back({"-l (the labels)", *request.labels_path, true});
    return files;
}

LoadedInput load(const FitRequest& request, uint64_t max_bytes, Progress& progress) {
    progress.begin("reading " + request.input);
    LoadedInput in;
    in.data = open_matrix(request.input, request.dims, in.format, max_bytes);
    if (request.truth_path) in.truth = read_truth(*request.truth_path, in.data.rows, max_bytes);
    in.seconds = progress.end("reading", std::to_string(in.data.rows) + " x " + std::to_string(in.data.cols));
    return in;
}

double fit_model(Model& model, const InputMatrix& data, Progress& progress) {
    progress.begin("fitting (method=" + model.param("method") + ", n=" + std::to_string(data.rows) +
                   ", d=" + std::to_string(data.cols) + ", k=" + model.param("k") + ", m=" + model.param("m") + ")");
    model.fit(data.view());
    return progress.end("fitting");
}

int fit(const FitRequest& request) {
    const Stopwatch total;
    Progress progress(!request.quiet);
    Model model;
    model.set_params(request.params);  // fail fast on bad parameters, before reading
    if (!request.quiet) model.show_progress_bar();
    check_files(command_files(request));
    const LoadedInput in = load(request, model.max_input_bytes(), progress);
    const double fit_seconds = fit_model(model, in.data, progress);
    const std::vector<int32_t> labels = model.labels();
    // Outputs replace existing files only whole and only on success: the labels go to a
    // temporary file, the model is saved (kkm_save also writes aside and renames), then the
    // labels file is renamed into place. If the save fails the old labels file is untouched.
    double write_seconds = -1;
    std::optional<StagedOutput> labels_out;
    if (request.labels_path) {
        progress.begin("writing labels to " + *request.labels_path);
        labels_out.emplace(*request.labels_path);
        labels_out->write(labels_text(*request.labels_path, labels));
        write_seconds = progress.end("writing labels");
    }
    if (request.model_path) {
        progress.begin("saving the model to " + *request.model_path);
        model.save(*request.model_path);
        write_seconds = std::max(write_seconds, 0.0) + progress.end("saving the model");
    }
    if (labels_out) labels_out->commit();

    std::ostream& out = std::cout;
    print_field(out, "input", request.input + " (" + in.format + ")");
    print_field(out, "n", std::to_string(in.data.rows));
    print_field(out, "d", std::to_string(in.data.cols));
    print_model_summary(out, model);
    if (in.truth) {
        print_field(out, "ARI", fixed(adjusted_rand_index(labels, *in.truth), 4));
        print_field(out, "NMI", fixed(normalized_mutual_info(labels, *in.truth), 4));
    }
    if (request.labels_path) print_field(out, "labels", *request.labels_path);
    if (request.model_path) print_field(out, "model", *request.model_path);
    print_seconds(out, "read", in.seconds);
    print_seconds(out, "fit", fit_seconds);
    print_stage_times(out, model);
    if (write_seconds >= 0) print_seconds(out, "write", write_seconds);
    print_seconds(out, "total", total.seconds());
    return 0;
}

}  // namespace

int run_fit(std::span<char* const> args) {
    const ParsedArgs parsed = parse_args(args, kFitOptions);
    if (parsed.has("help")) {
        print_usage(std::cout);
        return 0;
    }
    return fit(make_request(parsed));
}

}  // namespace kkm_tool
