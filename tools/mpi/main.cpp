// kkmeans-mpi: the fit of the kkmeans command over the ranks of MPI_COMM_WORLD.
//   mpirun -np P kkmeans-mpi fit --dims D data.f32 [key=value ...] -l labels.i32 -o model.kkm
// Each rank reads only its slice of the rows (mapped read-only; pread where it cannot be) and
// fits with kkm_fit_mpi; the labels go into one int32 file, each rank writing its rows' at
// their offset; rank 0 saves the model and prints the summary. A failure on any rank is a failure on every rank (same exit status);
// rank 0 prints its message.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.h"
#include "data_io.h"
#include "kkmeans.h"
#include "kkmeans_mpi.h"
#include "model.h"
#include "mpi/raw_rows.h"
#include "mpi/shared_output.h"
#include "mpi/together.h"
#include "report.h"

#ifndef KKM_TOOL_VERSION
#define KKM_TOOL_VERSION "unknown"
#endif

namespace kkm_tool {
namespace {

void print_usage(std::ostream& out) {
    out << R"(usage: mpirun -np P kkmeans-mpi fit --dims D [options] INPUT [key=value ...]

Kernel k-means over MPI: the ranks fit INPUT together (kkm_fit_mpi), each reading only its
share of the rows, split as evenly as possible in rank order.

  fit --dims D INPUT  INPUT: raw little-endian float32 rows of D values (not compressed)
        -p, --params TEXT   parameters "k=10 method=nystrom ..." (see 'kkmeans params');
                            bare key=value arguments are parameters too
        -o, --output FILE   save the fitted model (written by rank 0; for 'kkmeans assign')
        -l, --labels FILE   write the training labels as raw little-endian int32, one per
                            row in row order (each rank writes its rows' labels)
                            (outputs are written to a temporary file beside FILE and
                            renamed over it on success: a failed run leaves FILE as it was)
        -q, --quiet         no progress lines on stderr
  -h, --help      this help
  -V, --version   version of the program and of the library

Over several ranks: every method but minibatch with tau=0, kernel=precomputed,
kernel=laplacian with gamma=auto and refine=hartigan (see kkmeans_mpi.h). Progress and the summary come from
rank 0. Exit status, the same on every rank: 0 success, 1 failure, 2 usage error.
)";
}

constexpr std::array kFitOptions = {
    OptionSpec{'p', "params", true}, OptionSpec{'l', "labels", true}, OptionSpec{'o', "output", true},
    OptionSpec{'\0', "dims", true},  OptionSpec{'q', "quiet", false}, OptionSpec{'h', "help", false},
};

struct FitRequest {
    std::string input;
    std::string params;
    std::optional<std::string> labels_path;
    std::optional<std::string> model_path;
    int64_t dims = 0;
    bool quiet = false;
};

std::vector<CommandFile> command_files(const FitRequest& request) {
    std::vector<CommandFile> files{{"the input", request.input, false}};
    if (request.model_path) files.push_back({"-o (the model)", *request.model_path, true, true});
    if (request.labels_path) files.push_back({"-l (the labels)", *request.labels_path, true, true});
    return files;
}

FitRequest make_request(const ParsedArgs& parsed) {
    if (parsed.positionals.size() != 1) {
        throw UsageError(parsed.positionals.empty() ? "fit: missing INPUT" : "fit: one INPUT expected");
    }
    const auto dims = parsed.last("dims");
    if (!dims) throw UsageError("fit: --dims D is required (INPUT is raw float32 rows of D values)");
    FitRequest request;
    request.input = parsed.positionals[0];
    request.params = parsed.joined_params();
    request.labels_path = parsed.last("labels");
    request.model_path = parsed.last("output");
    request.dims = parse_count("--dims", *dims);
    request.quiet = parsed.has("quiet");
    raw_row_bytes(request.dims);  // --dims 0 or too large: a usage error now
    return request;
}

double max_over_ranks(MPI_Comm comm, double v) {
    double out = v;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
    return out;
}

/// This rank's rows, with the split they come from.
struct LocalRows {
    RowSlice slice;
    InputMatrix data;
};

LocalRows read_rows(MPI_Comm comm, const FitRequest& request) {
    LocalRows rows;
    together(comm, [&] {
        rows.slice = slice_rows(raw_file_rows(request.input, request.dims), rank_of(comm), size_of(comm));
        rows.data = open_raw_slice(request.input, request.dims, rows.slice);
    });
    return rows;
}

void fit_rows(MPI_Comm comm, Model& model, const LocalRows& rows) {
    const float* X = rows.slice.count > 0 ? rows.data.view().data : nullptr;
    check(kkm_fit_mpi(model.handle(), comm, X, rows.slice.count, rows.data.cols, nullptr));  // collective errors
}

void print_summary(const FitRequest& request, const Model& model, const LocalRows& rows, int ranks,
                   const std::array<double, 4>& seconds) {
    std::ostream& out = std::cout;
    print_field(out, "input", request.input + " (raw float32)");
    print_field(out, "ranks", std::to_string(ranks));
    print_field(out, "n", std::to_string(rows.slice.total));
    print_field(out, "d", std::to_string(request.dims));
    print_model_summary(out, model);
    if (request.labels_path) print_field(out, "labels", *request.labels_path + " (int32)");
    if (request.model_path) print_field(out, "model", *request.model_path);
    print_seconds(out, "read", seconds[0]);  // the slowest rank's
    print_seconds(out, "fit", seconds[1]);
    print_stage_times(out, model);
    if (seconds[2] >= 0) print_seconds(out, "write", seconds[2]);
    print_seconds(out, "total", seconds[3]);
}

int fit(MPI_Comm comm, const FitRequest& request) {
    const Stopwatch total;
    const int rank = rank_of(comm);
    Progress progress(!request.quiet && rank == 0);
    Model model;
    together(comm, [&] {
        model.set_params(request.params);  // fail fast on bad parameters, before reading
        check_files(command_files(request));
        if (request.labels_path) regular_target(*request.labels_path);
    });
    progress.begin("reading " + request.input + " (each of " + std::to_string(size_of(comm)) + " ranks its rows)");
    const LocalRows rows = read_rows(comm, request);
    std::array<double, 4> seconds{};
    seconds[0] = max_over_ranks(
        comm, progress.end("reading", std::to_string(rows.slice.total) + " x " + std::to_string(request.dims)));
    progress.begin("fitting (method=" + model.param("method") + ", k=" + model.param("k") + ", " +
                   std::to_string(size_of(comm)) + " ranks)");
    fit_rows(comm, model, rows);
    seconds[1] = progress.end("fitting");
    // As kkmeans fit: the labels go to a temporary file, the model is saved (kkm_save writes
    // aside and renames), then the labels file is renamed into place.
    seconds[2] = -1;
    const bool writes = request.labels_path || request.model_path;
    if (writes) progress.begin("writing the outputs");
    std::optional<SharedOutput> labels_out;
    if (request.labels_path) {
        labels_out.emplace(comm, *request.labels_path, static_cast<uint64_t>(rows.slice.total) * 4);
        std::string bytes;
        together(comm, [&] { bytes = labels_i32(model.labels()); });
        labels_out->write_at(static_cast<uint64_t>(rows.slice.first) * 4, bytes.data(), bytes.size());
    }
    if (request.model_path) {
        together(comm, [&] {
            if (rank == 0) model.save(*request.model_path);
        });
    }
    if (labels_out) labels_out->commit();
    if (writes) seconds[2] = progress.end("writing the outputs");
    seconds[3] = total.seconds();
    if (rank == 0) print_summary(request, model, rows, size_of(comm), seconds);
    return 0;
}

int run_fit(MPI_Comm comm, std::span<char* const> args) {
    ParsedArgs parsed;
    std::optional<FitRequest> request;
    bool help = false;
    together(comm, [&] {
        parsed = parse_args(args, kFitOptions);
        help = parsed.has("help");
        if (!help) request = make_request(parsed);
    });
    if (help) {
        if (rank_of(comm) == 0) print_usage(std::cout);
        return 0;
    }
    return fit(comm, *request);
}

int dispatch(MPI_Comm comm, int argc, char** argv) {
    const std::string_view command = argc >= 2 ? argv[1] : "";
    const bool lead = rank_of(comm) == 0;
    if (command == "-h" || command == "--help" || command == "help") {
        if (lead) print_usage(std::cout);
        return 0;
    }
    if (command == "-V" || command == "--version") {
        if (lead) std::cout << "kkmeans-mpi " << KKM_TOOL_VERSION << " (libkkmeans " << kkm_version() << ")\n";
        return 0;
    }
    if (command == "fit") return run_fit(comm, std::span<char* const>(argv + 2, static_cast<size_t>(argc - 2)));
    throw UsageError(command.empty() ? "missing command" : "unknown command '" + std::string(command) + "'");
}

/// Runs the command; every rank returns the same exit status, rank 0 prints the error.
int run(MPI_Comm comm, int argc, char** argv) {
    const bool lead = rank_of(comm) == 0;
    try {
        return finish_standard_output(dispatch(comm, argc, argv), "kkmeans-mpi");
    } catch (const UsageError& e) {
        if (lead) {
            std::cerr << "kkmeans-mpi: " << e.what() << "\n\n";
            print_usage(std::cerr);
        }
        return 2;
    } catch (const std::exception& e) {
        if (lead) std::cerr << "kkmeans-mpi: error: " << e.what() << '\n';
    }
    return 1;
}

}  // namespace
}  // namespace kkm_tool

int main(int argc, char** argv) {
    kkm_tool::reserve_standard_descriptors();
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    const int status = kkm_tool::run(MPI_COMM_WORLD, argc, argv);
    MPI_Finalize();
    return status;
}
