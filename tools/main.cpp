// kkmeans: command-line front end of the kkmeans library (sub-command dispatch and usage).
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string_view>

#include "cli.h"
#include "commands.h"
#include "kkmeans.h"

#ifndef KKM_TOOL_VERSION
#define KKM_TOOL_VERSION "unknown"
#endif

namespace kkm_tool {

void print_usage(std::ostream& out) {
    out << R"(usage: kkmeans <command> [options]

Kernel k-means clustering at scale.

commands:
  fit [options] INPUT [key=value ...]
      Cluster INPUT: a CSV of numbers (separator ',' ';' TAB or blanks; lines end with
      LF, CRLF or CR; a UTF-8 byte-order mark is skipped) or, with --dims D, raw
      little-endian float32 rows of D values. The first line of a CSV is a header if
      none of its fields is a number, data if all of them are; a first line with both
      (a typo such as '2.O', or a header field named '2019') is an error naming the
      line and columns. Inputs may be gzip-compressed; '-' reads standard input. A raw
      file is mapped, not read: it must not be shortened or rewritten until the fit
      ends (a cut file ends the program with a message naming it).
        -p, --params TEXT   parameters "k=10 method=nystrom ..." (see 'kkmeans params');
                            bare key=value arguments are parameters too
        -o, --output FILE   save the fitted model (kkmeans model file, for 'assign')
        -l, --labels FILE   write the training labels as CSV (header 'label')
                            (outputs are written to a temporary file beside FILE and
                            renamed over it on success: a failed run leaves FILE as it was;
                            a device or FIFO is written through; two outputs naming one
                            file, or an output naming an input, are refused)
            --truth FILE    true labels (CSV or one integer per line; with several
                            columns the last one): print ARI and NMI
            --dims D        INPUT is raw float32 with D columns
        -q, --quiet         no progress lines on stderr
  assign [options] MODEL INPUT [max_memory_mb=N|auto]
      Assign the rows of INPUT (as for fit; d must match the model) to the clusters of
      MODEL (a file written by 'fit -o') and write their labels as CSV. INPUT read into
      memory (CSV, gzip, standard input) is limited by the model's max_memory_mb, or by
      max_memory_mb= given here (the one parameter assign takes).
        -l, --labels FILE   where to write the labels (default '-': standard output;
                            written piece by piece into a staged copy that replaces
                            the file only once the labels are complete)
            --dims D        INPUT is raw float32 with D columns
            --truth FILE    true labels: print ARI and NMI on stderr
        -q, --quiet         no progress or summary lines on stderr
  demo [options] [key=value ...]
      Cluster Fashion-MNIST (60000 x 784, package dataset-fashion-mnist) with
      k=10 method=nystrom m=1000 seed=0 (key=value overrides) and report NMI / ARI.
            --data-dir DIR  where the *-idx?-ubyte.gz files are
                            (default /usr/share/datasets/fashion-mnist)
            --test          also assign the 10000 test images and score them
        -q, --quiet         no progress lines on stderr
  params
      Print the parameter table (Markdown).

  -h, --help      this help (also 'kkmeans <command> --help')
  -V, --version   version of the program and of the library

Progress goes to stderr (with a progress bar of the fit's stages when stderr is a
terminal), results to stdout. Exit status: 0 success, 1 failure,
2 usage error.
)";
}

namespace {

int print_version() {
    std::cout << "kkmeans " << KKM_TOOL_VERSION << " (libkkmeans " << kkm_version() << ")\n";
    return 0;
}

int dispatch(int argc, char** argv) {
    if (argc < 2) throw UsageError("missing command");
    const std::string_view command = argv[1];
    const std::span<char* const> rest(argv + 2, static_cast<size_t>(argc - 2));
    if (command == "-h" || command == "--help" || command == "help") {
        print_usage(std::cout);
        return 0;
    }
    if (command == "-V" || command == "--version") return print_version();
    if (command == "fit") return run_fit(rest);
    if (command == "assign") return run_assign(rest);
    if (command == "demo") return run_demo(rest);
    if (command == "params") return run_params(rest);
    throw UsageError("unknown command '" + std::string(command) + "'");
}

}  // namespace
}  // namespace kkm_tool

int main(int argc, char** argv) {
    kkm_tool::reserve_standard_descriptors();
    try {
        return kkm_tool::finish_standard_output(kkm_tool::dispatch(argc, argv), "kkmeans");
    } catch (const kkm_tool::UsageError& e) {
        std::cerr << "kkmeans: " << e.what() << "\n\n";
        kkm_tool::print_usage(std::cerr);
        return 2;
    } catch (const std::bad_alloc&) {
        std::cerr << "kkmeans: error: out of memory\n";
    } catch (const std::exception& e) {
        std::cerr << "kkmeans: error: " << e.what() << '\n';
    }
    return 1;
}
