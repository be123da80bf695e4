# Meson test driver: runs the package's testthat suite against the package installed in the
# build tree, checks that the SWIG files committed in bindings/r match what swig generates
# now, and ends with the line "N passed, N failed" (scripts/summarize-tests.py reads it).
#
#   Rscript run-tests.R LIB_DIR TESTS_DIR GENERATED_WRAP GENERATED_R COMMITTED_WRAP COMMITTED_R
args <- commandArgs(trailingOnly = TRUE)
stopifnot(length(args) == 6L)
lib <- normalizePath(args[1L])
tests <- normalizePath(args[2L])
.libPaths(c(lib, .libPaths()))
Sys.setenv(R_LIBS = paste(c(lib, Sys.getenv("R_LIBS")), collapse = ":"))

suppressPackageStartupMessages(library(testthat))
results <- testthat::test_dir(tests, package = "fastkkm", load_package = "installed",
                              reporter = testthat::ProgressReporter$new(show_praise = FALSE),
                              stop_on_failure = FALSE, stop_on_warning = FALSE)
df <- as.data.frame(results)
bad <- df$failed > 0 | df$error
skipped <- df$skipped & !bad
passed <- sum(!bad & !skipped)
failed <- sum(bad)

# The generated files shipped in the package must be what swig makes of bindings/swig now.
same <- function(generated, committed) {
    isTRUE(file.exists(committed)) && identical(readLines(generated), readLines(committed))
}
fresh <- same(args[3L], args[5L]) && same(args[4L], args[6L])
if (fresh) {
    passed <- passed + 1L
    cat("ok: the SWIG files committed in bindings/r match the interface\n")
} else {
    failed <- failed + 1L
    cat("FAIL: bindings/r/src/kkmeans_wrap.cpp or bindings/r/R/swig_kkmeans.R is stale; regenerate them with\n",
        "  sh bindings/r/tools/swig-r.sh swig bindings/swig bindings/r/src/kkmeans_wrap.cpp bindings/r/R/swig_kkmeans.R\n",
        "(or ninja -C BUILD r-update-swig)\n", sep = "")
}
if (any(skipped)) cat(sprintf("%d test(s) skipped\n", sum(skipped)))
cat(sprintf("%d passed, %d failed\n", passed, failed))
quit(status = if (failed == 0L) 0L else 1L)
