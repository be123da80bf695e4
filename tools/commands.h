// The sub-commands. Each takes the arguments after its name and returns the exit status;
// failures are thrown (see cli.h) and reported by main.
#pragma once

#include <iosfwd>
#include <span>

namespace kkm_tool {

int run_fit(std::span<char* const> args);
int run_assign(std::span<char* const> args);
int run_demo(std::span<char* const> args);
int run_params(std::span<char* const> args);

/// The whole usage text (also printed after a usage error).
void print_usage(std::ostream& out);

}  // namespace kkm_tool
