# Progress reports, cancellation and user interrupts during kkmeans() (bindings/swig/r.i:
# the native progress callback runs R_CheckUserInterrupt and the progress function under
# R_UnwindProtect and the R layer resumes a stopped jump after the fit).

# A fit that runs for minutes unless cancelled: mini-batch steps until max_iter (epsilon = 0
# never stops early), each step a small block of work, so a cancel takes effect at once.
long_fit_data <- function() {
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    set.seed(5)
    matrix(rnorm(20000 * 8), ncol = 8)
}
long_fit <- function(x, progress) {
    kkmeans(x, 20, method = "minibatch", max_iter = 1000000, epsilon = 0, threads = 2, seed = 1,
            progress = progress)
}
seconds_since <- function(t0) as.numeric(difftime(Sys.time(), t0, units = "secs"))

test_that("a progress function receives each stage's fractions, ending with done; the fit is unchanged by it", {
    d <- make_rings(150L, seed = 21L)
    reports <- list()
    listened <- kkmeans(d$x, 2, method = "nystrom", m = 60, gamma = ring_gamma, nstart = 3, seed = 7,
                        progress = function(stage, fraction) {
                            reports[[length(reports) + 1L]] <<- list(stage = stage, fraction = fraction)
                            TRUE
                        })
    stages <- vapply(reports, `[[`, "", "stage")
    fractions <- vapply(reports, `[[`, 0, "fraction")
    expect_true(all(c("landmarks", "seeding", "lloyd") %in% stages))
    expect_identical(tail(stages, 1L), "done")
    expect_identical(tail(fractions, 1L), 1)
    expect_true(all(fractions >= 0 & fractions <= 1))
    quiet <- kkmeans(d$x, 2, method = "nystrom", m = 60, gamma = ring_gamma, nstart = 3, seed = 7, progress = FALSE)
    expect_identical(listened$cluster, quiet$cluster)
    expect_identical(listened$tot.withinss, quiet$tot.withinss)
})

test_that("Lloyd reports increasing fractions (a long Lloyd, stopped after 6 reports)", {
    # Lloyd on uniform data with k = 50 takes dozens of iterations of about 0.1 s. (Within the
    # seeding and minibatch stages the library's fractions are not monotone: they restart
    # with each inner loop.)
    old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, globalenv()))
    set.seed(8)
    x <- matrix(runif(20000 * 8), ncol = 8)
    lloyd <- numeric(0)
    tryCatch(kkmeans(x, 50, method = "nystrom", m = 300, max_iter = 300, tol = 0, threads = 2, seed = 1,
                     progress = function(stage, fraction) {
                         expect_true(fraction >= 0 && fraction <= 1)
                         if (stage == "lloyd") lloyd <<- c(lloyd, fraction)
                         length(lloyd) < 6L
                     }),
             kkmeans_cancelled = function(e) NULL)
    expect_gte(length(lloyd), 3L)
    expect_true(all(diff(lloyd) > 0))
})

test_that("a progress function returning FALSE cancels a long fit quickly", {
    x <- long_fit_data()
    calls <- 0L
    t0 <- Sys.time()
    err <- tryCatch(long_fit(x, function(stage, fraction) {
        calls <<- calls + 1L
        calls < 2L  # FALSE at the second report
    }), kkmeans_cancelled = function(e) e)
    elapsed <- seconds_since(t0)
    expect_s3_class(err, "kkmeans_cancelled")
    expect_s3_class(err, "kkmeans_error")
    expect_match(conditionMessage(err), "progress function returned FALSE")
    expect_identical(calls, 2L)  # no report after the cancel
    expect_lt(elapsed, 2)
})

test_that("an error in the progress function cancels the fit and reaches the caller as it is", {
    x <- long_fit_data()
    t0 <- Sys.time()
    boom <- structure(class = c("my_progress_error", "error", "condition"),
                      list(message = "boom from the progress function", call = NULL))
    err <- tryCatch(long_fit(x, function(stage, fraction) stop(boom)), error = function(e) e)
    expect_lt(seconds_since(t0), 2)
    expect_identical(err, boom)
    # A calling handler around kkmeans() sees it during the fit; the package still works.
    seen <- NULL
    expect_error(withCallingHandlers(long_fit(x, function(stage, fraction) stop("second boom")),
                                     error = function(e) seen <<- conditionMessage(e)), "second boom")
    expect_identical(seen, "second boom")
    d <- make_rings(100L, seed = 22L)
    expect_s3_class(kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1, progress = FALSE), "kkmeans")
})

test_that("progress = TRUE shows a progress bar through message(), silenced by suppressMessages", {
    d <- make_rings(100L, seed = 23L)
    fit <- NULL
    shown <- capture_messages(fit <- kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1, progress = TRUE))
    expect_s3_class(fit, "kkmeans")
    expect_true(any(grepl("^\rkkmeans lloyd +\\|[= ]{30}\\| +[0-9]+%$", shown)))
    expect_true(any(grepl("^\rkkmeans done +\\|={30}\\| 100%$", shown)))
    expect_identical(tail(shown, 1L), "\n")  # the bar's line is ended
    expect_silent(suppressMessages(kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1, progress = TRUE)))
    # options(kkmeans.progress =) sets the default; FALSE (non-interactive default) shows nothing.
    old <- options(kkmeans.progress = TRUE)
    on.exit(options(old))
    expect_true(any(grepl("kkmeans done", capture_messages(kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1)))))
    expect_silent(kkmeans(d$x, 2, method = "exact", gamma = ring_gamma, seed = 1, progress = FALSE))
    expect_error(kkmeans(d$x, 2, method = "exact", progress = "yes"), "progress must be", class = "kkmeans_invalid_argument")
})

test_that("a SIGINT during the fit cancels it and raises an R interrupt (in this process)", {
    skip_on_os("windows")
    x <- long_fit_data()
    calls <- 0L
    sent <- NULL
    t0 <- Sys.time()
    # The progress function sends this process a real SIGINT at its third report, as Ctrl-C
    # would; R notes it, the next interrupt check (inside R_ToplevelExec) sees it.
    cond <- tryCatch(long_fit(x, function(stage, fraction) {
        calls <<- calls + 1L
        if (calls == 3L) {
            sent <<- Sys.time()
            tools::pskill(Sys.getpid(), tools::SIGINT)
        }
        TRUE
    }), interrupt = function(c) c)
    expect_identical(class(cond), c("interrupt", "condition"))  # R's own interrupt condition
    expect_false(is.null(sent))
    expect_lt(seconds_since(sent), 1)
    expect_lt(seconds_since(t0), 3)
})

test_that("Ctrl-C (SIGINT) stops an Rscript fitting a large problem within seconds", {
    skip_on_os("windows")
    dir <- tempfile("kkm-sigint-")
    dir.create(dir)
    on.exit(unlink(dir, recursive = TRUE), add = TRUE)
    script <- file.path(dir, "child.R")
    started <- file.path(dir, "started")
    status_file <- file.path(dir, "status")
    out <- file.path(dir, "out.txt")
    writeLines(c(
        "library(fastkkm)",
        "set.seed(5)",
        "x <- matrix(rnorm(20000 * 8), ncol = 8)",
        # progress = FALSE: the default of a script; interrupts are checked all the same.
        sprintf("writeLines(as.character(Sys.getpid()), '%s')", started),
        "fit <- withCallingHandlers(",
        "    kkmeans(x, 20, method = 'minibatch', max_iter = 1000000, epsilon = 0, threads = 2, progress = FALSE),",
        "    interrupt = function(c) cat('caught:', class(c), '\\n'))",
        "cat('the fit finished\\n')"
    ), script)
    rscript <- file.path(R.home("bin"), "Rscript")
    # The shell waits for Rscript and writes its exit status: the test sees the exit.
    system2("sh", c("-c", shQuote(sprintf("'%s' '%s' > '%s' 2>&1; echo $? > '%s.tmp'; mv '%s.tmp' '%s'",
                                                  rscript, script, out, status_file, status_file, status_file))),
            wait = FALSE)
    deadline <- Sys.time() + 60
    while (!file.exists(started) && Sys.time() < deadline) Sys.sleep(0.05)
    expect_true(file.exists(started))
    pid <- as.integer(readLines(started))
    Sys.sleep(1)  # well into the fit (it runs for minutes uninterrupted)
    expect_false(file.exists(status_file))
    t0 <- Sys.time()
    tools::pskill(pid, tools::SIGINT)
    while (!file.exists(status_file) && seconds_since(t0) < 20) Sys.sleep(0.02)
    elapsed <- seconds_since(t0)
    if (!file.exists(status_file)) tools::pskill(pid, tools::SIGKILL)
    expect_true(file.exists(status_file))
    expect_lt(elapsed, 5)
    status <- as.integer(readLines(status_file))
    output <- readLines(out)
    expect_identical(status, 1L)  # an interrupt not handled ends a script ("Execution halted")
    expect_true(any(grepl("caught: interrupt condition", output, fixed = TRUE)))
    expect_true(any(grepl("Execution halted", output, fixed = TRUE)))
    expect_false(any(grepl("the fit finished", output, fixed = TRUE)))
    message(sprintf("SIGINT to Rscript exit: %.2f s", elapsed))
})
