// kkmeans demo: cluster Fashion-MNIST and score the clustering against the true classes.
#include <array>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli.h"
#include "commands.h"
#include "data_io.h"
#include "model.h"
#include "report.h"

namespace kkm_tool {
namespace {

constexpr std::array kDemoOptions = {
    OptionSpec{'\0', "data-dir", true},
    OptionSpec{'\0', "test", false},
    OptionSpec{'q', "quiet", false},
    OptionSpec{'h', "help", false},
};

constexpr const char* kDefaultDataDir = "/usr/share/datasets/fashion-mnist";
constexpr const char* kDefaultParams = "k=10 method=nystrom m=1000 seed=0";

/// One split of the data set: images (n × 784, pixels / 255) and their classes.
struct Split {
    Matrix images;
    std::vector<int32_t> classes;
};

std::string dataset_file(const std::string& dir, const std::string& name) {
    const std::filesystem::path path = std::filesystem::path(dir) / name;
    if (!std::filesystem::exists(path)) {
        throw ToolError("Fashion-MNIST file " + path.string() +
                        " not found; install the data set with `apt-get install dataset-fashion-mnist`"
                        " or point --data-dir at a directory holding " +
                        name);
    }
    return path.string();
}

Split read_split(const std::string& dir, const std::string& prefix, uint64_t max_bytes) {
    Split split;
    split.images = read_idx_images(dataset_file(dir, prefix + "-images-idx3-ubyte.gz"), max_bytes);
    split.classes = read_idx_labels(dataset_file(dir, prefix + "-labels-idx1-ubyte.gz"), max_bytes);
    if (static_cast<int64_t>(split.classes.size()) != split.images.rows) {
        throw ToolError(prefix + " split: " + std::to_string(split.images.rows) + " images but " +
                        std::to_string(split.classes.size()) + " labels");
    }
    return split;
}

void print_scores(std::ostream& out, const std::string& suffix, const std::vector<int32_t>& labels,
                  const std::vector<int32_t>& truth) {
    print_field(out, "NMI" + suffix, fixed(normalized_mutual_info(labels, truth), 4));
    print_field(out, "ARI" + suffix, fixed(adjusted_rand_index(labels, truth), 4));
}

/// Assigns the test split and prints its scores and the assignment time.
void run_test_split(std::ostream& out, const Model& model, const std::string& dir, Progress& progress) {
    progress.begin("reading test split");
    const Split test = read_split(dir, "t10k", model.max_input_bytes());
    const double read_seconds = progress.end("reading test split");
    progress.begin("assigning " + std::to_string(test.images.rows) + " test images");
    const std::vector<int32_t> labels = model.assign(test.images.view());
    const double assign_seconds = progress.end("assigning");
    print_field(out, "n test", std::to_string(test.images.rows));
    print_scores(out, " test", labels, test.classes);
    print_seconds(out, "read test", read_seconds);
    print_seconds(out, "assign", assign_seconds);
}

int demo(const ParsedArgs& parsed) {
    if (!parsed.positionals.empty()) throw UsageError("demo: unexpected argument '" + parsed.positionals[0] + "'");
    const Stopwatch total;
    Progress progress(!parsed.has("quiet"));
    const std::string dir = parsed.last("data-dir").value_or(kDefaultDataDir);
    const std::string user_params = parsed.joined_params();
    const std::string params = user_params.empty() ? kDefaultParams : std::string(kDefaultParams) + " " + user_params;
    Model model;
    // Two calls: the user's key=value override the defaults (one call would refuse a key
    // given twice).
    model.set_params(kDefaultParams);
    model.set_params(user_params);
    if (!parsed.has("quiet")) model.show_progress_bar();

    progress.begin("reading Fashion-MNIST from " + dir);
    const Split train = read_split(dir, "train", model.max_input_bytes());
    const double read_seconds =
        progress.end("reading", std::to_string(train.images.rows) + " x " + std::to_string(train.images.cols));
    progress.begin("fitting (" + params + ")");
    model.fit(train.images.view());
    const double fit_seconds = progress.end("fitting");
    const std::vector<int32_t> labels = model.labels();

    std::ostream& out = std::cout;
    print_field(out, "data", "Fashion-MNIST train (" + dir + ")");
    print_field(out, "n", std::to_string(train.images.rows));
    print_field(out, "d", std::to_string(train.images.cols));
    print_field(out, "params", params);
    print_model_summary(out, model);
    print_scores(out, "", labels, train.classes);
    print_seconds(out, "read", read_seconds);
    print_seconds(out, "fit", fit_seconds);
    print_stage_times(out, model);
    if (parsed.has("test")) run_test_split(out, model, dir, progress);
    print_seconds(out, "total", total.seconds());
    return 0;
}

}  // namespace

int run_demo(std::span<char* const> args) {
    const ParsedArgs parsed = parse_args(args, kDemoOptions);
    if (parsed.has("help")) {
        print_usage(std::cout);
        return 0;
    }
    return demo(parsed);
}

}  // namespace kkm_tool
