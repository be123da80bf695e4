# R CMD check entry point; the meson test runs the same files (bindings/r/tools/run-tests.R).
library(testthat)
library(fastkkm)
test_check("fastkkm")
