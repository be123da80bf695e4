// Placeholder: tests land with the implementation.
#include <gtest/gtest.h>
