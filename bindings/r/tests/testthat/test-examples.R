# The examples of the repository (examples/r) run against the installed package. They are not
# part of the R package, so R CMD check (which copies only the package) skips this file.

examples_dir <- function() {
    dir <- file.path("..", "..", "..", "..", "examples", "r")
    if (file.exists(file.path(dir, "rings.R"))) normalizePath(dir) else NULL
}

run_example <- function(script, ...) {
    rscript <- file.path(R.home("bin"), "Rscript")
    libs <- paste(.libPaths(), collapse = .Platform$path.sep)
    suppressWarnings(system2(rscript, c(shQuote(script), ...), stdout = TRUE, stderr = TRUE,
                             env = paste0("R_LIBS=", shQuote(libs))))
}

test_that("examples/r/rings.R draws the README's picture: linear k-means fails, kernel k-means finds the rings", {
    dir <- examples_dir()
    skip_if(is.null(dir), "examples/r is not beside the package (R CMD check)")
    png <- tempfile(fileext = ".png")
    out <- run_example(file.path(dir, "rings.R"), shQuote(png))
    expect_null(attr(out, "status"))
    expect_true(any(grepl("rbf kernel: ARI 1.000", out)), label = paste(out, collapse = "\n"))
    ari_linear <- as.numeric(sub(".*linear kernel: ARI ([0-9.]+).*", "\\1", grep("linear kernel", out, value = TRUE)))
    expect_lt(ari_linear, 0.2)
    expect_gt(file.size(png), 10000)
    expect_identical(readBin(png, "raw", 8L), as.raw(c(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)))
})

test_that("examples/r/example.R runs, plots and predicts through a restored model", {
    dir <- examples_dir()
    skip_if(is.null(dir), "examples/r is not beside the package (R CMD check)")
    pdf <- tempfile(fileext = ".pdf")
    out <- run_example(file.path(dir, "example.R"), shQuote(pdf))
    expect_null(attr(out, "status"))
    expect_true(any(grepl("kkmeans \\(exact, rbf\\): +adjusted Rand index vs rings = 1.000", out)),
                label = paste(out, collapse = "\n"))
    expect_gt(file.size(pdf), 0)
})
