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

repo_root <- function() {
    dir <- file.path("..", "..", "..", "..")
    if (file.exists(file.path(dir, "README.md")) && file.exists(file.path(dir, "bindings", "r", "cleanup"))) {
        normalizePath(dir)
    } else {
        NULL
    }
}

test_that("the READMEs install the package with --clean, and cleanup removes what the build wrote into src", {
    root <- repo_root()
    skip_if(is.null(root), "the repository is not beside the package (R CMD check)")
    for (readme in file.path(root, c("README.md", "bindings/r/README.md"))) {
        lines <- grep("R CMD INSTALL", readLines(readme), value = TRUE)
        expect_gt(length(lines), 0L)
        for (line in lines) {
            # each command (not "R CMD INSTALL \u2192" describing the build): up to bindings/r, or to
            # "..." where the text elides the rest
            commands <- regmatches(line, gregexpr("R CMD INSTALL (?!\u2192)[^`#;&|]*?(bindings/r\\b|\\.\\.\\.)", line,
                                                  perl = TRUE))[[1L]]
            for (command in commands) expect_match(command, "--clean", fixed = TRUE, label = paste(readme, command))
        }
    }
    # --clean runs the package's cleanup script after the install: it leaves src/ as committed
    copy <- tempfile("fastkkm-src-")
    dir.create(file.path(copy, "src"), recursive = TRUE)
    file.copy(file.path(root, "bindings", "r", "cleanup"), copy)
    built <- file.path(copy, "src", c("Makevars", "kkmeans_wrap.o", "fastkkm.so"))
    kept <- file.path(copy, "src", c("Makevars.in", "kkmeans_wrap.cpp"))
    file.create(c(built, kept))
    old <- setwd(copy)
    on.exit(setwd(old))
    status <- system2("sh", "cleanup", stdout = FALSE, stderr = FALSE)
    expect_identical(status, 0L)
    expect_false(any(file.exists(built)))
    expect_true(all(file.exists(kept)))
})

test_that("the R maintainer is named as the Java and C# packages name their authors", {
    root <- repo_root()
    skip_if(is.null(root), "the repository is not beside the package (R CMD check)")
    pom <- readLines(file.path(root, "bindings", "java", "pom.xml.in"))
    after <- pom[seq(grep("<developer>", pom, fixed = TRUE)[1L], length(pom))]
    developer <- sub(".*<name>(.*)</name>.*", "\\1", grep("<name>", after, value = TRUE)[1L])
    nuspec <- readLines(file.path(root, "bindings", "csharp", "package.py"))
    authors <- sub(".*<authors>(.*)</authors>.*", "\\1", grep("<authors>", nuspec, value = TRUE))
    maintainer <- sub(" <.*", "", utils::packageDescription("fastkkm")$Maintainer)
    expect_identical(developer, "The kkmeans authors")
    expect_identical(authors, developer)
    expect_identical(maintainer, developer)
})
