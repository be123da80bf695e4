#include "mapped_guard.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace kkm_tool {
namespace {

// The message, composed before the file is mapped: the handler may only write(2) and _exit.
// This is the program's one piece of mutable process state (a signal handler has no other
// way to know the file), set from the main thread before any mapping exists.
std::array<char, 4096> message{};
size_t message_length = 0;

void on_sigbus(int) {
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message.data(), message_length);
    ::_exit(1);
}

void append(const char* text) {
    const size_t n = std::min(std::strlen(text), message.size() - message_length);
    std::memcpy(message.data() + message_length, text, n);
    message_length += n;
}

}  // namespace

void guard_mapped_input(const char* program, const std::string& path) {
    message_length = 0;
    append(program);
    append(": error: the input file '");
    append(path.c_str());
    append(
        "' was truncated or could not be read while it was mapped (SIGBUS); a file being clustered "
        "must not be shortened or rewritten until the program ends: copy it first, or read it "
        "through standard input\n");
    struct sigaction action {};
    action.sa_handler = on_sigbus;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, nullptr);
}

}  // namespace kkm_tool
